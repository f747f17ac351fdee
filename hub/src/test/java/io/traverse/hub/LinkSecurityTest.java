package io.traverse.hub;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.traverse.identity.NodeId;
import io.traverse.security.LinkTls;
import io.traverse.wire.LinkMessageCodec;
import io.traverse.wire.LinkMessageType;
import io.traverse.wire.LinkPreamble;
import io.traverse.wire.LinkRole;
import io.traverse.wire.LookupKind;
import io.traverse.wire.RejectCode;
import io.traverse.wire.ResultStatus;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Wrong tokens, duplicate ids, wrong versions and malformed input close only the offending link. */
class LinkSecurityTest {
    private final TestHubs hubs = new TestHubs();
    private Hub hub;
    private TestNodeClient bystander;

    @BeforeEach
    void hubWithABystander() throws Exception {
        hub = hubs.dialOnly("security");
        bystander = TestNodeClient.connect(hub, TestHubs.TOKEN, "bystander");
    }

    @AfterEach
    void closeAll() {
        bystander.close();
        hubs.close();
    }

    @Test
    void aWrongTokenIsRejectedWithAuthAndTheHubServesOthers() throws Exception {
        assertThatThrownBy(() -> TestNodeClient.connect(hub, "wrong-token", "intruder"))
                .isInstanceOfSatisfying(
                        TestNodeClient.RejectedException.class,
                        e -> assertThat(e.reject.code()).isEqualTo(RejectCode.AUTH));
        assertBystanderIsServed();
        assertThat(hub.status().nodes())
                .extracting(HubStatus.NodeStatus::nodeId)
                .containsExactly(bystander.id());
    }

    @Test
    void aSecondLiveNodeWithTheSameIdIsRefused() throws Exception {
        assertThatThrownBy(() -> TestNodeClient.connect(hub, TestHubs.TOKEN, "bystander"))
                .isInstanceOfSatisfying(TestNodeClient.RejectedException.class, e -> {
                    assertThat(e.reject.code()).isEqualTo(RejectCode.DUPLICATE_ID);
                    assertThat(e.reject.reason()).contains("already connected");
                });
        assertBystanderIsServed();
        // Once the first has left, the id is free again.
        bystander.close();
        await().atMost(Duration.ofSeconds(5))
                .untilAsserted(() -> assertThat(hub.status().nodes()).isEmpty());
        bystander = TestNodeClient.connect(hub, TestHubs.TOKEN, "bystander");
    }

    @Test
    void aNodeStatingALiveNodesIdWithoutItsKeyIsRefusedNamingBothIds() throws Exception {
        // The right token, and a TLS key of its own: all it lacks is the key of the id it states.
        NodeId provedId = TestKeys.id("impostor");
        assertThatThrownBy(() -> TestNodeClient.connectWithKeyOf(hub, TestHubs.TOKEN, bystander.id(), "impostor"))
                .isInstanceOfSatisfying(TestNodeClient.RejectedException.class, e -> {
                    assertThat(e.reject.code()).isEqualTo(RejectCode.AUTH);
                    assertThat(e.reject.reason())
                            .isEqualTo(
                                    "id " + bystander.id() + " is not the id of the key it proved (" + provedId + ")");
                });
        assertBystanderIsServed();
        assertThat(hub.status().nodes())
                .extracting(HubStatus.NodeStatus::nodeId)
                .containsExactly(bystander.id());
    }

    @Test
    void aHubStatingALinkedHubsIdWithoutItsKeyIsRefusedNamingBothIds() throws Exception {
        Hub peer = hubs.dialOnly("security-peer", hub);
        await().atMost(Duration.ofSeconds(5))
                .until(() -> hub.status().hubLinks().size() == 1);
        NodeId provedId = TestKeys.id("impostor-hub");
        assertThatThrownBy(() -> RawHubLink.connect(hub, peer.id(), "impostor-hub"))
                .isInstanceOfSatisfying(TestNodeClient.RejectedException.class, e -> {
                    assertThat(e.reject.code()).isEqualTo(RejectCode.AUTH);
                    assertThat(e.reject.reason())
                            .isEqualTo("id " + peer.id() + " is not the id of the key it proved (" + provedId + ")");
                });
        // The real hub keeps its link, and no conflict is reported: nobody else proved its id.
        await().during(Duration.ofMillis(500))
                .atMost(Duration.ofSeconds(3))
                .untilAsserted(() -> assertThat(hub.status().hubLinks())
                        .extracting(HubStatus.HubLinkStatus::peerId)
                        .containsExactly(peer.id()));
        assertThat(hub.status().idConflicts()).isEmpty();
        assertBystanderIsServed();
    }

    @Test
    void aNodeThatStopsAnsweringIsDroppedAfterThreeKeepaliveIntervals() throws Exception {
        try (TestNodeClient hung =
                TestNodeClient.connect(TestNodeClient.loopback(hub), TestHubs.TOKEN, TestKeys.id("hung"), false)) {
            assertThat(hub.status().nodes()).hasSize(2);
            long start = System.nanoTime();
            await().atMost(Duration.ofSeconds(5))
                    .untilAsserted(() -> assertThat(hub.status().nodes())
                            .extracting(HubStatus.NodeStatus::nodeId)
                            .containsExactly(bystander.id()));
            assertThat(Duration.ofNanos(System.nanoTime() - start))
                    .isGreaterThanOrEqualTo(TestHubs.KEEPALIVE.multipliedBy(2));
        }
        assertBystanderIsServed();
    }

    @Test
    void theWelcomeEchoesTheAddressTheHubSaw() throws Exception {
        assertThat(bystander.welcome().observedAddress().getAddress().getHostAddress())
                .isEqualTo("127.0.0.1");
        assertThat(bystander.welcome().keepaliveMillis()).isEqualTo(TestHubs.KEEPALIVE.toMillis());
        assertThat(hub.status().nodes().get(0).observedAddress())
                .endsWith(":" + bystander.welcome().observedAddress().getPort());
    }

    @Test
    void anotherVersionGetsOurPreambleAndARejectThatSaysWhich() throws Exception {
        // 1: a node from before links ran TLS; the other: one from after the next change.
        for (int version : new int[] {1, LinkPreamble.VERSION + 1}) {
            try (Socket raw = rawSocket()) {
                DataOutputStream out = new DataOutputStream(raw.getOutputStream());
                out.write(ByteBuffer.allocate(8)
                        .putInt(LinkPreamble.MAGIC)
                        .putShort((short) version)
                        .putShort((short) LinkRole.NODE.code())
                        .array());
                DataInputStream in = new DataInputStream(raw.getInputStream());
                byte[] preamble = new byte[8];
                in.readFully(preamble);
                assertThat(ByteBuffer.wrap(preamble).getInt()).isEqualTo(LinkPreamble.MAGIC);
                assertThat(ByteBuffer.wrap(preamble).getShort(4)).isEqualTo((short) LinkPreamble.VERSION);
                // In clear: the refusal comes before TLS, which the other version may not speak.
                io.traverse.wire.Reject reject = (io.traverse.wire.Reject) readFrame(in);
                assertThat(reject.code()).isEqualTo(RejectCode.VERSION);
                assertThat(reject.reason())
                        .isEqualTo("unsupported link protocol version " + version + " (this hub speaks "
                                + LinkPreamble.VERSION + ")");
                assertThat(in.read()).isEqualTo(-1);
            }
        }
        assertBystanderIsServed();
    }

    @Test
    void wrongMagicIsClosedAtOnceWithoutAnAnswer() throws Exception {
        try (Socket raw = rawSocket()) {
            raw.getOutputStream().write("SSH-2.0-OpenSSH_9.2\r\n".getBytes());
            assertThat(raw.getInputStream().read()).isEqualTo(-1);
        }
        // An HTTP request is the long-poll endpoint's: answered in HTTP, nothing of the link protocol.
        try (Socket raw = rawSocket()) {
            raw.getOutputStream().write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes());
            byte[] status = raw.getInputStream().readNBytes(12);
            assertThat(new String(status, java.nio.charset.StandardCharsets.US_ASCII))
                    .isEqualTo("HTTP/1.1 404");
        }
        assertBystanderIsServed();
    }

    @Test
    void anOversizedFrameBeforeAuthenticationIsRefused() throws Exception {
        LinkTls keyTls = TestKeys.tlsOf("oversized");
        try (Socket raw = rawSocket();
                // Past the preambles and TLS, where HELLO would come: frames are still held to the bounds before
                // authentication.
                Socket tls = TestKeys.startTls(raw, hubAddress(), LinkRole.NODE, keyTls)) {
            DataOutputStream out = new DataOutputStream(tls.getOutputStream());
            out.writeInt(Integer.MAX_VALUE); // 2 GiB announced; nothing of it is ever buffered
            out.writeByte(LinkMessageType.HELLO.code());
            out.flush();
            DataInputStream in = new DataInputStream(tls.getInputStream());
            io.traverse.wire.Reject reject = (io.traverse.wire.Reject) readFrame(in);
            assertThat(reject.code()).isEqualTo(RejectCode.PROTOCOL);
            assertThat(reject.reason()).contains("frame too long");
            assertThat(in.read()).isEqualTo(-1);
        }
        assertBystanderIsServed();
    }

    @Test
    void aDataLinkSwitchWithoutADataLinkClosesOnlyThatLink() throws Exception {
        try (TestNodeClient rude = TestNodeClient.connect(hub, TestHubs.TOKEN, "switcher")) {
            rude.send(new io.traverse.wire.DataLinkSwitch());
            io.traverse.wire.Reject reject = rude.awaitClose();
            assertThat(reject.code()).isEqualTo(RejectCode.PROTOCOL);
            assertThat(reject.reason()).contains("DATA_LINK_SWITCH from node").contains("without a data link");
        }
        assertBystanderIsServed();
    }

    @Test
    void garbageAfterAuthenticationClosesOnlyThatLink() throws Exception {
        try (TestNodeClient rude = TestNodeClient.connect(hub, TestHubs.TOKEN, "rude")) {
            rude.sendRaw(new byte[] {0, 0, 0, 3, 99, 1, 2}); // unknown frame type 99
            io.traverse.wire.Reject reject = rude.awaitClose();
            assertThat(reject.code()).isEqualTo(RejectCode.PROTOCOL);
            assertThat(reject.reason()).isEqualTo("unknown frame type 99");
        }
        try (TestNodeClient rude = TestNodeClient.connect(hub, TestHubs.TOKEN, "rude2")) {
            rude.sendRaw(new byte[] {0, 0, 0, 2, (byte) LinkMessageType.PING.code(), 1}); // truncated PING
            assertThat(rude.awaitClose().reason()).contains("truncated ping token");
        }
        try (TestNodeClient rude = TestNodeClient.connect(hub, TestHubs.TOKEN, "rude3")) {
            rude.send(new io.traverse.wire.Gossip(new io.traverse.wire.HubDescription(
                    NodeId.of("fake-hub"), 1, "fake", List.of(), List.of(), List.of(), List.of())));
            assertThat(rude.awaitClose().reason()).contains("GOSSIP is not something a node sends");
        }
        assertBystanderIsServed();
        assertThat(hub.status().knownHubs()).isEmpty();
    }

    @Test
    void aSilentHandshakeTimesOut() throws Exception {
        try (Socket raw = rawSocket()) {
            raw.setSoTimeout(10_000);
            raw.getOutputStream().write(nodePreamble());
            InputStream in = raw.getInputStream();
            in.readNBytes(8);
            long start = System.nanoTime();
            assertThat(in.read()).isEqualTo(-1);
            assertThat(Duration.ofNanos(System.nanoTime() - start))
                    .isLessThan(TestHubs.HANDSHAKE_TIMEOUT.plusSeconds(3));
        }
        assertBystanderIsServed();
    }

    @Test
    void aHubWithAnotherTokenCannotJoin() throws Exception {
        Hub stranger = hubs.start("stranger", b -> b.token("other-token").advertisedAddresses(List.of()), hub);
        await().during(Duration.ofMillis(500))
                .atMost(Duration.ofSeconds(3))
                .until(() -> stranger.status().hubLinks().isEmpty()
                        && hub.status().hubLinks().isEmpty());
        assertBystanderIsServed();
    }

    private void assertBystanderIsServed() throws Exception {
        assertThat(bystander.lookup(LookupKind.HUBS, "").status()).isEqualTo(ResultStatus.OK);
        assertThat(bystander.isClosedByPeer()).isFalse();
    }

    private InetSocketAddress hubAddress() {
        return new InetSocketAddress("127.0.0.1", hub.linkAddress().getPort());
    }

    private Socket rawSocket() throws IOException {
        Socket socket = new Socket();
        socket.connect(hubAddress(), 5000);
        socket.setSoTimeout(10_000);
        return socket;
    }

    private static byte[] nodePreamble() {
        return ByteBuffer.allocate(8)
                .putInt(LinkPreamble.MAGIC)
                .putShort((short) LinkPreamble.VERSION)
                .putShort((short) LinkRole.NODE.code())
                .array();
    }

    private static io.traverse.wire.LinkMessage readFrame(DataInputStream in) throws IOException {
        int length = in.readInt();
        byte[] frame = new byte[length];
        in.readFully(frame);
        return LinkMessageCodec.decode(frame);
    }
}
