package io.traverse.hub;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.traverse.wire.LinkMessage;
import io.traverse.wire.LinkMessageCodec;
import io.traverse.wire.LinkPreamble;
import io.traverse.wire.LinkRole;
import io.traverse.wire.LookupKind;
import io.traverse.wire.NameBind;
import io.traverse.wire.ResultStatus;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Strangers and authenticated nodes throw random and mutated byte streams at a hub; whatever they
 * send, only their own link closes, the hub keeps serving a well-behaved node, and it holds no
 * leftovers of them. Seeded: {@code -DtestSeed=N}.
 */
class HubFuzzTest {
    private static final long SEED = Long.getLong("testSeed", 0x7261766572L);
    private static final int CASES = 150;

    private final TestHubs hubs = new TestHubs();

    @AfterEach
    void closeHubs() {
        hubs.close();
    }

    @Test
    void randomStreamsCloseOnlyTheirOwnLink() throws Exception {
        Hub hub = hubs.dialOnly("fuzzed");
        try (TestNodeClient bystander = TestNodeClient.connect(hub, TestHubs.TOKEN, "bystander")) {
            assertThat(bystander.bind("steady", 80).status()).isEqualTo(ResultStatus.OK);
            for (int n = 0; n < CASES; n++) {
                Random r = new Random(SEED + n);
                String described = "seed " + SEED + " case " + n + " (rerun with -DtestSeed=" + SEED + ")";
                if (r.nextBoolean()) {
                    strangerSends(hub, randomStream(r));
                } else {
                    try (TestNodeClient node = TestNodeClient.connect(hub, TestHubs.TOKEN, "fuzz-" + n)) {
                        node.sendRaw(randomFrames(r));
                    }
                }
                if (n % 25 == 0) {
                    assertThat(bystander.lookup(LookupKind.NAME, "steady").status())
                            .as(described)
                            .isEqualTo(ResultStatus.OK);
                }
            }
            assertThat(bystander.lookup(LookupKind.NAME, "steady").status()).isEqualTo(ResultStatus.OK);
            await().atMost(Duration.ofSeconds(10))
                    .untilAsserted(() -> assertThat(hub.status().nodes())
                            .extracting(HubStatus.NodeStatus::nodeId)
                            .containsExactly(bystander.id()));
            assertThat(hub.status().names()).containsOnlyKeys("steady");
            assertThat(bystander.isClosedByPeer()).isFalse();
        }
    }

    private static void strangerSends(Hub hub, byte[] bytes) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", hub.linkAddress().getPort()), 5000);
            socket.setSoTimeout(3000);
            try {
                socket.getOutputStream().write(bytes);
                socket.shutdownOutput();
                InputStream in = socket.getInputStream();
                // Whatever the answer, the hub ends the conversation: by closing, or by timing the handshake out.
                while (in.read() >= 0) {
                    // drain
                }
            } catch (IOException resetOrTimeout) {
                // a reset or a handshake waiting for more is a fine answer to garbage
            }
        }
    }

    /** Sometimes a valid preamble, then random bytes or plausible frames with random bodies. */
    private static byte[] randomStream(Random r) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        if (r.nextInt(4) != 0) {
            out.writeBytes(ByteBuffer.allocate(8)
                    .putInt(LinkPreamble.MAGIC)
                    .putShort((short) (r.nextInt(5) == 0 ? r.nextInt(4) : LinkPreamble.VERSION))
                    .putShort((short) (r.nextBoolean() ? LinkRole.NODE.code() : r.nextInt(4)))
                    .array());
        }
        out.writeBytes(randomFrames(r));
        return out.toByteArray();
    }

    private static byte[] randomFrames(Random r) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        try {
            int frames = 1 + r.nextInt(4);
            for (int i = 0; i < frames; i++) {
                switch (r.nextInt(4)) {
                    case 0 -> {
                        byte[] junk = new byte[r.nextInt(64)];
                        r.nextBytes(junk);
                        out.write(junk);
                    }
                    case 1 -> out.writeInt(r.nextBoolean() ? Integer.MAX_VALUE : -1 - r.nextInt(1000));
                    default -> {
                        byte[] body = mutate(LinkMessageCodec.encodeToBytes(plausible(r)), r);
                        out.writeInt(body.length);
                        out.write(body);
                    }
                }
            }
        } catch (IOException impossible) {
            throw new IllegalStateException(impossible);
        }
        return bytes.toByteArray();
    }

    private static LinkMessage plausible(Random r) {
        List<LinkMessage> options = new ArrayList<>();
        options.add(new NameBind(r.nextInt(), "fuzz-name-" + r.nextInt(5), 1 + r.nextInt(65535)));
        options.add(new io.traverse.wire.Lookup(
                r.nextInt(), LookupKind.values()[r.nextInt(LookupKind.values().length)], "x"));
        options.add(io.traverse.wire.SideMessage.request(
                r.nextLong(), TestKeys.id("bystander"), TestKeys.id("bystander"), "s", new byte[8]));
        options.add(new io.traverse.wire.Ping(r.nextLong()));
        return options.get(r.nextInt(options.size()));
    }

    private static byte[] mutate(byte[] valid, Random r) {
        byte[] bytes = valid.clone();
        int edits = r.nextInt(3);
        for (int i = 0; i < edits && bytes.length > 0; i++) {
            bytes[r.nextInt(bytes.length)] = (byte) r.nextInt(256);
        }
        return bytes;
    }
}
