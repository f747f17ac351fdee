package io.traverse.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import io.traverse.identity.NodeId;
import io.traverse.identity.RandomIdentities;
import io.traverse.protocol.ProtocolException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class LinkMessageCodecTest {
    private static final int CASES = 3_000;

    @Test
    void everyMessageTypeRoundTrips() throws Exception {
        Set<LinkMessageType> seen = EnumSet.noneOf(LinkMessageType.class);
        for (int n = 0; n < CASES; n++) {
            Random r = RandomIdentities.forCase(n);
            for (LinkMessage message : RandomLinkMessages.oneOfEach(r)) {
                byte[] frame = LinkMessageCodec.encodeToBytes(message);
                assertThat(frame[0] & 0xff).isEqualTo(message.type().code());
                assertThat(LinkMessageCodec.decode(frame))
                        .as(RandomIdentities.describe(n))
                        .isEqualTo(message);
                seen.add(message.type());
            }
        }
        assertThat(seen).containsExactlyInAnyOrder(LinkMessageType.values());
    }

    @Test
    void messagesRoundTripThroughTheNettyPipelineAfterThePreamble() {
        EmbeddedChannel sender = new EmbeddedChannel(LinkMessageEncoder.INSTANCE);
        EmbeddedChannel receiver = new EmbeddedChannel();
        LinkPipeline.installCodec(receiver.pipeline());
        Random r = RandomIdentities.forCase(1);
        List<LinkMessage> sent = new ArrayList<>();
        ByteBuf wire = Unpooled.buffer();
        LinkPreamble.current(LinkRole.NODE).encode(wire);
        for (int i = 0; i < 50; i++) {
            LinkMessage message = RandomLinkMessages.any(r);
            if (LinkMessageCodec.encodedLength(message) > LinkLimits.MAX_FRAME_BEFORE_AUTH) {
                continue;
            }
            sent.add(message);
            // The pipeline releases what it sends; RELAY frames go out as header and payload.
            sender.writeOutbound(ReferenceCountUtil.retain(message));
            for (ByteBuf part; (part = sender.readOutbound()) != null; ) {
                wire.writeBytes(part);
                part.release();
            }
        }
        // Everything in one read, then one byte at a time: the frame decoder must not care.
        receiver.writeInbound(wire.retainedSlice(0, wire.readableBytes() / 2));
        for (int i = wire.readableBytes() / 2; i < wire.readableBytes(); i++) {
            receiver.writeInbound(wire.retainedSlice(i, 1));
        }
        wire.release();
        assertThat(receiver.<Object>readInbound()).isEqualTo(LinkPreamble.current(LinkRole.NODE));
        List<Object> received = new ArrayList<>();
        for (Object m; (m = receiver.readInbound()) != null; ) {
            received.add(m);
        }
        assertThat(received).isEqualTo(sent);
        received.forEach(ReferenceCountUtil::release);
        sent.forEach(ReferenceCountUtil::release);
        assertThat(receiver.pipeline().get(LinkPipeline.PREAMBLE))
                .as("preamble decoder removes itself")
                .isNull();
        assertThat(receiver.finishAndReleaseAll()).isFalse();
        sender.finishAndReleaseAll();
    }

    @Test
    void theStartOfAGossipFrameCanBeReadWithoutConsumingIt() {
        NodeId hub = NodeId.of("hub-peek");
        HubDescription description = new HubDescription(
                hub,
                0xfedcba9876543210L,
                "peek",
                List.of("127.0.0.1:17001"),
                List.of(NodeId.of("other")),
                List.of(),
                List.of());
        ByteBuf frame = Unpooled.wrappedBuffer(LinkMessageCodec.encodeToBytes(new Gossip(description)));
        int readable = frame.readableBytes();
        assertThat(LinkMessageCodec.peekGossip(frame)).isEqualTo(new GossipDigest.Entry(hub, 0xfedcba9876543210L));
        assertThat(frame.readableBytes()).isEqualTo(readable);
        assertThat(LinkMessageCodec.peekGossip(Unpooled.wrappedBuffer(LinkMessageCodec.encodeToBytes(new Ping(7)))))
                .isNull();
        // Truncated within the header, or an id that is no id: left to the full decoder to report.
        assertThat(LinkMessageCodec.peekGossip(frame.slice(0, 5))).isNull();
        assertThat(LinkMessageCodec.peekGossip(
                        Unpooled.wrappedBuffer(new byte[] {48, 3, 'A', '!', ' ', 0, 0, 0, 0, 0, 0, 0, 0})))
                .isNull();
        assertThat(LinkMessageCodec.peekGossip(Unpooled.EMPTY_BUFFER)).isNull();
    }

    @Test
    void roundTripTimesAreOnePerNeighbourOrNoneAndTheirCountIsAlwaysThere() throws Exception {
        List<NodeId> neighbours = List.of(NodeId.of("left"), NodeId.of("right"));
        HubDescription timed = new HubDescription(
                NodeId.of("hub-rtt"),
                5,
                "rtt",
                List.of(),
                neighbours,
                List.of(),
                List.of(),
                List.of(1234L, HubDescription.RTT_UNKNOWN));
        byte[] frame = LinkMessageCodec.encodeToBytes(new Gossip(timed));
        HubDescription decoded = ((Gossip) LinkMessageCodec.decode(frame)).description();
        assertThat(decoded.rttMicrosTo(NodeId.of("left"))).isEqualTo(1234);
        assertThat(decoded.rttMicrosTo(NodeId.of("right"))).isEqualTo(-1);
        assertThat(decoded.rttMicrosByNeighbour()).containsExactly(1234L, -1L);
        // No times: an empty list, whose count is still written.
        HubDescription untimedSent = new HubDescription(
                NodeId.of("hub-rtt"), 5, "rtt", List.of(), neighbours, List.of(), List.of(), List.of());
        byte[] untimedFrame = LinkMessageCodec.encodeToBytes(new Gossip(untimedSent));
        assertThat(untimedFrame).hasSize(frame.length - 2 * 4);
        HubDescription untimed = ((Gossip) LinkMessageCodec.decode(untimedFrame)).description();
        assertThat(untimed.neighbourRttMicros()).isEmpty();
        assertThat(untimed.rttMicrosTo(NodeId.of("left"))).isEqualTo(-1);
        assertThat(untimed.rttMicrosByNeighbour()).containsExactly(-1L, -1L);
        // The frame cut after its names (what a hub built before the times sent) is malformed, not a shorter
        // description.
        byte[] older = java.util.Arrays.copyOf(frame, frame.length - 2 - 2 * 4);
        assertThatThrownBy(() -> LinkMessageCodec.decode(older))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("neighbour round-trip times count");
        // One time for two neighbours is refused.
        byte[] wrongCount = java.util.Arrays.copyOf(frame, frame.length - 4);
        wrongCount[wrongCount.length - 6] = 0;
        wrongCount[wrongCount.length - 5] = 1;
        assertThatThrownBy(() -> LinkMessageCodec.decode(wrongCount))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("1 neighbour round-trip times for 2 neighbours");
        // A count the frame cannot hold, a count cut in half, and bytes after the times: each refused by name, before
        // any list is made.
        byte[] oversized = java.util.Arrays.copyOf(frame, frame.length - 2 * 4);
        oversized[oversized.length - 2] = (byte) 0xff;
        oversized[oversized.length - 1] = (byte) 0xff;
        assertThatThrownBy(() -> LinkMessageCodec.decode(oversized))
                .isInstanceOf(ProtocolException.class)
                .hasMessage("neighbour round-trip times count 65535 cannot fit in the 0 bytes left");
        byte[] halfCount = java.util.Arrays.copyOf(frame, frame.length - 1 - 2 * 4);
        assertThatThrownBy(() -> LinkMessageCodec.decode(halfCount))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("truncated neighbour round-trip times count");
        byte[] trailing = java.util.Arrays.copyOf(frame, frame.length + 1);
        assertThatThrownBy(() -> LinkMessageCodec.decode(trailing))
                .isInstanceOf(ProtocolException.class)
                .hasMessage("1 trailing bytes after GOSSIP");
    }

    @Test
    void aGossipSummaryIsTwelveBytesAfterItsTypeAndRefusesAnythingElse() throws Exception {
        GossipSummary summary = new GossipSummary(1000, 0x0123456789abcdefL);
        byte[] frame = LinkMessageCodec.encodeToBytes(summary);
        assertThat(frame)
                .containsExactly(
                        50,
                        0,
                        0,
                        0x03,
                        (byte) 0xe8,
                        0x01,
                        0x23,
                        0x45,
                        0x67,
                        (byte) 0x89,
                        (byte) 0xab,
                        (byte) 0xcd,
                        (byte) 0xef);
        assertThat(LinkMessageCodec.decode(frame)).isEqualTo(summary);
        assertThat(LinkMessageCodec.decode(LinkMessageCodec.encodeToBytes(new GossipSummary(0xFFFF_FFFFL, -1))))
                .isEqualTo(new GossipSummary(0xFFFF_FFFFL, -1));
        assertThatThrownBy(() -> LinkMessageCodec.decode(java.util.Arrays.copyOf(frame, frame.length - 1)))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("summary hash");
        assertThatThrownBy(() -> LinkMessageCodec.decode(java.util.Arrays.copyOf(frame, 3)))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("summary descriptions");
        assertThatThrownBy(() -> LinkMessageCodec.decode(java.util.Arrays.copyOf(frame, frame.length + 1)))
                .isInstanceOf(ProtocolException.class)
                .hasMessage("1 trailing bytes after GOSSIP_SUMMARY");
        assertThatThrownBy(() -> new GossipSummary(-1, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new GossipSummary(0x1_0000_0000L, 0)).isInstanceOf(IllegalArgumentException.class);
        // Not a GOSSIP frame: nothing to peek at.
        assertThat(LinkMessageCodec.peekGossip(Unpooled.wrappedBuffer(frame))).isNull();
    }

    @Test
    void theSummaryHashIsFixedByTheProtocolAndIndependentOfOrder() {
        NodeId a = NodeId.of("hub-a");
        NodeId b = NodeId.of("hub-b");
        // Pinned: both ends of a link must compute the same value, whatever their build (docs/protocol.md).
        assertThat(GossipSummary.entryHash(a, 1)).isEqualTo(PINNED_HASH_A1);
        assertThat(GossipSummary.entryHash(a, 1))
                .isNotEqualTo(GossipSummary.entryHash(a, 2))
                .isNotEqualTo(GossipSummary.entryHash(b, 1));
        long ab = GossipSummary.entryHash(a, 1) + GossipSummary.entryHash(b, 7);
        long ba = GossipSummary.entryHash(b, 7) + GossipSummary.entryHash(a, 1);
        assertThat(ab).isEqualTo(ba);
    }

    private static final long PINNED_HASH_A1 = 0x71d43f9be6567860L;

    @Test
    void frameLimitRisesAfterAuthentication() {
        EmbeddedChannel receiver = new EmbeddedChannel();
        LinkPipeline.installCodec(receiver.pipeline());
        receiver.writeInbound(preamble(LinkRole.HUB));
        assertThat(receiver.<Object>readInbound()).isInstanceOf(LinkPreamble.class);
        LinkPipeline.authenticated(receiver.pipeline());
        LinkMessage big = new LookupResult(7, ResultStatus.OK, List.of("x".repeat(8000), "y".repeat(8000)));
        EmbeddedChannel sender = new EmbeddedChannel(LinkMessageEncoder.INSTANCE);
        sender.writeOutbound(big);
        receiver.writeInbound((ByteBuf) sender.readOutbound());
        assertThat(receiver.<Object>readInbound()).isEqualTo(big);
        receiver.finishAndReleaseAll();
        sender.finishAndReleaseAll();
    }

    @Test
    void encoderRefusesFramesOverTheMaximum() {
        EmbeddedChannel sender = new EmbeddedChannel(LinkMessageEncoder.INSTANCE);
        List<String> entries = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            entries.add("z".repeat(LinkLimits.MAX_LOOKUP_ENTRY));
        }
        assertThatThrownBy(() -> sender.writeOutbound(new LookupResult(1, ResultStatus.OK, entries)))
                .hasMessageContaining("exceeds the frame maximum");
        assertThat(sender.<Object>readOutbound()).isNull();
        sender.finishAndReleaseAll();
    }

    @Test
    void recordsRefuseFieldsTheWireCannotCarry() {
        NodeId id = NodeId.of("node-1");
        assertThatThrownBy(() -> new NodeHello(id, new byte[31], "tv1-node-1"))
                .hasMessageContaining("client nonce must be 32");
        assertThatThrownBy(() -> new NameBind(1, "bad name", 80)).hasMessageContaining("letters, digits");
        assertThatThrownBy(() -> new NameBind(1, "ok", 0)).hasMessageContaining("virtual port 0");
        assertThatThrownBy(() -> new SideMessage(1, id, id, 256, SideMessageKind.REQUEST, "", new byte[0]))
                .hasMessageContaining("hops left");
        assertThatThrownBy(() -> SideMessage.request(1, id, id, "s".repeat(65), new byte[0]))
                .hasMessageContaining("service");
        assertThatThrownBy(() -> SideMessage.request(1, id, id, "", new byte[LinkLimits.MAX_SIDE_PAYLOAD + 1]))
                .hasMessageContaining("payload");
        assertThatThrownBy(() -> new SideMessage(1, id, id, 3, SideMessageKind.ERROR, "", new byte[0]))
                .hasMessageContaining("error code");
        assertThatThrownBy(() -> new HubHello(id, new byte[32], "hub 1", List.of(), 1))
                .hasMessageContaining("hub name");
        assertThatThrownBy(() -> new HubHello(id, new byte[32], "hub1", List.of("nohostport"), 1))
                .hasMessageContaining("host:port");
        assertThatThrownBy(() -> new Welcome(new byte[32], InetSocketAddress.createUnresolved("x", 1), 1000))
                .hasMessageContaining("IP address");
    }

    @Test
    void longReasonsAreCutToFitNotRefused() {
        Reject reject = Reject.of(RejectCode.PROTOCOL, "\u00e9".repeat(3000));
        assertThat(FieldChecks.utf8Length(reject.reason())).isLessThanOrEqualTo(LinkLimits.MAX_REASON);
        assertThat(reject.reason()).endsWith("...");
        SideMessage error = SideMessage.request(9, NodeId.of("a"), NodeId.of("b"), "svc", new byte[0])
                .error(SideMessageError.NO_ROUTE, "\ud83d\ude00".repeat(1000));
        assertThat(error.errorCode()).isEqualTo(SideMessageError.NO_ROUTE);
        assertThat(error.from()).isEqualTo(NodeId.of("b"));
        assertThat(error.to()).isEqualTo(NodeId.of("a"));
        assertThat(error.messageId()).isEqualTo(9);
        assertThat(error.errorReason()).startsWith("\ud83d\ude00").endsWith("...");
    }

    @Test
    void forwardingCountsHopsDown() {
        SideMessage m =
                new SideMessage(1, NodeId.of("a"), NodeId.of("b"), 1, SideMessageKind.REQUEST, "s", new byte[0]);
        assertThat(m.forwarded().hopsLeft()).isZero();
        assertThatThrownBy(() -> m.forwarded().forwarded()).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void welcomeCarriesTheObservedEndpointExactly() throws Exception {
        InetSocketAddress observed = new InetSocketAddress(InetAddress.getByName("fd00::7"), 40001);
        Welcome welcome = new Welcome(new byte[32], observed, 2000);
        Welcome decoded = (Welcome) LinkMessageCodec.decode(LinkMessageCodec.encodeToBytes(welcome));
        assertThat(decoded.observedAddress()).isEqualTo(observed);
        assertThat(decoded.keepaliveMillis()).isEqualTo(2000);
    }

    @Test
    void idsMustBeCanonicalOnTheWire() {
        byte[] frame = LinkMessageCodec.encodeToBytes(new Challenge(NodeId.of("abc"), new byte[32]));
        frame[2] = 'A';
        assertThatThrownBy(() -> LinkMessageCodec.decode(frame))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("canonical");
    }

    private static ByteBuf preamble(LinkRole role) {
        ByteBuf buf = Unpooled.buffer();
        LinkPreamble.current(role).encode(buf);
        return buf;
    }
}
