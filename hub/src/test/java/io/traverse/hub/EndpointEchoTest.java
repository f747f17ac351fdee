package io.traverse.hub;

import static org.assertj.core.api.Assertions.assertThat;

import io.traverse.wire.EndpointEcho;
import io.traverse.wire.LinkPreamble;
import io.traverse.wire.LinkRole;
import io.traverse.wire.LookupKind;
import io.traverse.wire.ResultStatus;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The endpoint echo for splicing (preamble role ECHO): the address the hub saw, then close; bad input closes only that connection. */
class EndpointEchoTest {
    private final TestHubs hubs = new TestHubs();
    private Hub hub;
    private TestNodeClient bystander;

    @BeforeEach
    void hubWithABystander() throws Exception {
        hub = hubs.dialOnly("echo");
        bystander = TestNodeClient.connect(hub, TestHubs.TOKEN, "bystander");
    }

    @AfterEach
    void closeAll() {
        bystander.close();
        hubs.close();
    }

    @Test
    void anEchoAnswersWithTheAddressAndPortTheHubSawThenCloses() throws Exception {
        for (int i = 0; i < 3; i++) {
            try (Socket raw = rawSocket()) {
                raw.getOutputStream().write(preamble(LinkPreamble.VERSION, LinkRole.ECHO.code()));
                DataInputStream in = new DataInputStream(raw.getInputStream());
                byte[] preamble = new byte[LinkPreamble.LENGTH];
                in.readFully(preamble);
                assertThat(ByteBuffer.wrap(preamble).getInt()).isEqualTo(LinkPreamble.MAGIC);
                assertThat(ByteBuffer.wrap(preamble).getShort(6)).isEqualTo((short) LinkRole.HUB.code());
                byte[] echo = new byte[EndpointEcho.length(4)];
                in.readFully(echo);
                assertThat(EndpointEcho.decode(echo)).isEqualTo(raw.getLocalSocketAddress());
                assertThat(in.read()).as("closed after the echo").isEqualTo(-1);
            }
        }
        assertBystanderIsServed();
    }

    @Test
    void anEchoThatSaysNothingMoreIsNotAnsweredTwiceAndAStalledPreambleTimesOut() throws Exception {
        try (Socket raw = rawSocket()) {
            raw.getOutputStream().write(preamble(LinkPreamble.VERSION, LinkRole.ECHO.code()));
            raw.getOutputStream()
                    .write(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}); // bytes after the echo request are ignored
            byte[] all = raw.getInputStream().readAllBytes();
            assertThat(all).hasSize(LinkPreamble.LENGTH + EndpointEcho.length(4));
        }
        try (Socket raw = rawSocket()) {
            raw.getOutputStream().write(new byte[] {0x54, 0x52}); // half a magic, then silence
            long start = System.nanoTime();
            assertThat(raw.getInputStream().read())
                    .as("closed by the handshake timeout")
                    .isEqualTo(-1);
            assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(9_000);
        }
        assertBystanderIsServed();
    }

    @Test
    void echoCodecRefusesMalformedEchoes() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> EndpointEcho.length(5))
                .hasMessageContaining("unknown address family 5");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> EndpointEcho.decode(new byte[] {4, 1, 2, 3, 4, 0}))
                .hasMessageContaining("malformed");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> EndpointEcho.decode(new byte[] {4, 1, 2, 3, 4, 0, 0}))
                .hasMessageContaining("port 0");
        InetSocketAddress v6 = new InetSocketAddress("::1", 40000);
        try {
            assertThat(EndpointEcho.decode(EndpointEcho.encode(v6))).isEqualTo(v6);
        } catch (io.traverse.protocol.ProtocolException e) {
            throw new AssertionError(e);
        }
    }

    private void assertBystanderIsServed() throws Exception {
        assertThat(bystander.lookup(LookupKind.HUBS, "").status()).isEqualTo(ResultStatus.OK);
        assertThat(bystander.isClosedByPeer()).isFalse();
    }

    private Socket rawSocket() throws IOException {
        Socket socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", hub.linkAddress().getPort()), 5000);
        socket.setSoTimeout(10_000);
        return socket;
    }

    private static byte[] preamble(int version, int role) {
        return ByteBuffer.allocate(LinkPreamble.LENGTH)
                .putInt(LinkPreamble.MAGIC)
                .putShort((short) version)
                .putShort((short) role)
                .array();
    }
}
