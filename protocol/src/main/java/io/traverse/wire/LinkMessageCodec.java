package io.traverse.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.ReferenceCountUtil;
import io.traverse.identity.NodeId;
import io.traverse.protocol.ProtocolException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns frames (type byte and payload, without the length prefix) into {@link LinkMessage}s and
 * back. Decoding untrusted bytes either yields a valid message or throws
 * {@link ProtocolException} with a reason; nothing else escapes, and no allocation is larger
 * than the bytes that actually arrived.
 */
public final class LinkMessageCodec {
    private LinkMessageCodec() {}

    /** Writes the type byte and payload of a message. */
    public static void encode(LinkMessage message, ByteBuf out) {
        WireWriter w = new WireWriter(out);
        w.u8(message.type().code());
        // Java 17: no pattern switch yet; the sealed interface keeps this list complete by review and tests.
        if (message instanceof NodeHello h) {
            w.u8(LinkRole.NODE.code())
                    .nodeId(h.senderId())
                    .fixedBytes(h.clientNonce())
                    .text(h.identityText());
        } else if (message instanceof HubHello h) {
            w.u8(LinkRole.HUB.code())
                    .nodeId(h.senderId())
                    .fixedBytes(h.clientNonce())
                    .text(h.hubName());
            textList(w, h.linkAddresses());
            w.u64(h.stateNumber());
        } else if (message instanceof Challenge c) {
            w.nodeId(c.acceptorId()).fixedBytes(c.serverNonce());
        } else if (message instanceof Auth a) {
            w.fixedBytes(a.mac());
        } else if (message instanceof Welcome welcome) {
            w.fixedBytes(welcome.mac())
                    .address(welcome.observedAddress().getAddress())
                    .u16(welcome.observedAddress().getPort())
                    .u32(welcome.keepaliveMillis());
        } else if (message instanceof Reject r) {
            w.u8(r.code().code()).text(r.reason());
        } else if (message instanceof Ping p) {
            w.u64(p.token());
        } else if (message instanceof Pong p) {
            w.u64(p.token());
        } else if (message instanceof NodeUpdate u) {
            w.text(u.identityText());
        } else if (message instanceof NameBind b) {
            w.u32(b.requestId()).text(b.name()).u16(b.virtualPort());
        } else if (message instanceof NameRelease r) {
            w.u32(r.requestId()).text(r.name());
        } else if (message instanceof Lookup l) {
            w.u32(l.requestId()).u8(l.kind().code()).text(l.argument());
        } else if (message instanceof Result r) {
            w.u32(r.requestId()).u8(r.status().code()).text(r.message());
        } else if (message instanceof LookupResult r) {
            w.u32(r.requestId()).u8(r.status().code());
            textList(w, r.entries());
        } else if (message instanceof DataLinkSwitch) {
            // no fields
        } else if (message instanceof SideMessage m) {
            w.u64(m.messageId())
                    .nodeId(m.from())
                    .nodeId(m.to())
                    .u8(m.hopsLeft())
                    .u8(m.kind().code())
                    .text(m.service())
                    .bytes(m.payload());
        } else if (message instanceof Relay m) {
            w.u64(m.connectionId())
                    .nodeId(m.opener())
                    .nodeId(m.acceptor())
                    .u8(m.direction().code())
                    .u8(m.hopsLeft())
                    .u8(m.kind().code())
                    .longBytes(m.payload());
        } else if (message instanceof Gossip g) {
            encodeDescription(w, g.description());
        } else if (message instanceof GossipDigest d) {
            w.count(d.entries().size());
            for (GossipDigest.Entry e : d.entries()) {
                w.nodeId(e.hubId()).u64(e.stateNumber());
            }
        } else if (message instanceof GossipSummary s) {
            w.u32(s.descriptions()).u64(s.hash());
        } else {
            throw new IllegalArgumentException(
                    "no encoding for " + message.getClass().getName());
        }
    }

    /** A message as a standalone frame body (type and payload), e.g. for tests and size checks. */
    public static byte[] encodeToBytes(LinkMessage message) {
        ByteBuf buf = Unpooled.buffer();
        try {
            encode(message, buf);
            byte[] bytes = new byte[buf.readableBytes()];
            buf.readBytes(bytes);
            return bytes;
        } finally {
            buf.release();
        }
    }

    /** The size of a message's frame body (type and payload), without its length prefix. */
    public static int encodedLength(LinkMessage message) {
        return encodeToBytes(message).length;
    }

    /**
     * Reads one whole frame (type and payload). The frame must be consumed exactly.
     *
     * @throws ProtocolException for an empty frame, an unknown type, a bad field or trailing bytes
     */
    public static LinkMessage decode(ByteBuf frame) throws ProtocolException {
        WireReader r = new WireReader(frame);
        if (!frame.isReadable()) {
            throw new ProtocolException("empty frame");
        }
        int code = r.u8("frame type");
        LinkMessageType type = LinkMessageType.ofCodeOrNull(code);
        if (type == null) {
            throw new ProtocolException("unknown frame type " + code);
        }
        LinkMessage message;
        try {
            message = decodeBody(type, r);
        } catch (IllegalArgumentException e) {
            throw new ProtocolException("malformed " + type + ": " + e.getMessage());
        }
        try {
            r.expectEnd(type.toString());
        } catch (ProtocolException e) {
            ReferenceCountUtil.release(message);
            throw e;
        }
        return message;
    }

    /**
     * The hub id and state number at the start of a GOSSIP frame (type and payload), read without
     * consuming the frame: lets a hub drop a description it already holds before decoding the rest.
     *
     * @return null if the frame is not GOSSIP or its start is malformed (full decoding reports why)
     */
    public static GossipDigest.Entry peekGossip(ByteBuf frame) {
        if (frame.readableBytes() < 1 || frame.getUnsignedByte(frame.readerIndex()) != LinkMessageType.GOSSIP.code()) {
            return null;
        }
        WireReader r = new WireReader(frame.duplicate().skipBytes(1));
        try {
            return new GossipDigest.Entry(r.nodeId("hub id"), r.u64("state number"));
        } catch (ProtocolException e) {
            return null;
        }
    }

    /** Convenience for byte arrays, e.g. in tests. */
    public static LinkMessage decode(byte[] frame) throws ProtocolException {
        return decode(Unpooled.wrappedBuffer(frame));
    }

    private static LinkMessage decodeBody(LinkMessageType type, WireReader r) throws ProtocolException {
        return switch (type) {
            case HELLO -> decodeHello(r);
            case CHALLENGE ->
                new Challenge(r.nodeId("acceptor id"), r.fixedBytes("server nonce", LinkLimits.NONCE_LENGTH));
            case AUTH -> new Auth(r.fixedBytes("mac", LinkLimits.MAC_LENGTH));
            case WELCOME -> {
                byte[] mac = r.fixedBytes("mac", LinkLimits.MAC_LENGTH);
                InetSocketAddress observed =
                        new InetSocketAddress(r.address("observed address"), r.u16("observed port"));
                long keepalive = r.u32("keepalive interval");
                yield new Welcome(mac, observed, (int) Math.min(keepalive, Integer.MAX_VALUE));
            }
            case REJECT -> new Reject(RejectCode.ofCode(r.u8("reject code")), r.text("reason", LinkLimits.MAX_REASON));
            case PING -> new Ping(r.u64("ping token"));
            case PONG -> new Pong(r.u64("pong token"));
            case NODE_UPDATE -> new NodeUpdate(r.text("identity text", LinkLimits.MAX_IDENTITY_TEXT));
            case NAME_BIND ->
                new NameBind(r.u32Bits("request id"), r.text("name", LinkLimits.MAX_NAME), r.u16("virtual port"));
            case NAME_RELEASE -> new NameRelease(r.u32Bits("request id"), r.text("name", LinkLimits.MAX_NAME));
            case LOOKUP ->
                new Lookup(
                        r.u32Bits("request id"),
                        LookupKind.ofCode(r.u8("lookup kind")),
                        r.text("lookup argument", LinkLimits.MAX_LOOKUP_ARGUMENT));
            case RESULT ->
                new Result(
                        r.u32Bits("request id"),
                        ResultStatus.ofCode(r.u8("status")),
                        r.text("message", LinkLimits.MAX_REASON));
            case LOOKUP_RESULT ->
                new LookupResult(
                        r.u32Bits("request id"),
                        ResultStatus.ofCode(r.u8("status")),
                        textList(r, "entries", LinkLimits.MAX_LIST, LinkLimits.MAX_LOOKUP_ENTRY));
            case DATA_LINK_SWITCH -> new DataLinkSwitch();
            case SIDE_MESSAGE ->
                new SideMessage(
                        r.u64("message id"),
                        r.nodeId("from"),
                        r.nodeId("to"),
                        r.u8("hops left"),
                        SideMessageKind.ofCode(r.u8("kind")),
                        r.text("service", LinkLimits.MAX_SERVICE),
                        r.bytes("payload", LinkLimits.MAX_SIDE_PAYLOAD));
            case RELAY ->
                new Relay(
                        r.u64("connection id"),
                        r.nodeId("opener"),
                        r.nodeId("acceptor"),
                        RelayDirection.ofCode(r.u8("direction")),
                        r.u8("hops left"),
                        RelayKind.ofCode(r.u8("kind")),
                        r.retainedLongBytes("payload", LinkLimits.MAX_RELAY_PAYLOAD));
            case GOSSIP -> new Gossip(decodeDescription(r));
            case GOSSIP_DIGEST -> decodeDigest(r);
            case GOSSIP_SUMMARY -> new GossipSummary(r.u32("summary descriptions"), r.u64("summary hash"));
        };
    }

    private static Hello decodeHello(WireReader r) throws ProtocolException {
        LinkRole role = LinkRole.ofCode(r.u8("role"));
        NodeId sender = r.nodeId("sender id");
        byte[] nonce = r.fixedBytes("client nonce", LinkLimits.NONCE_LENGTH);
        if (role == LinkRole.NODE) {
            return new NodeHello(sender, nonce, r.text("identity text", LinkLimits.MAX_IDENTITY_TEXT));
        }
        if (role != LinkRole.HUB) {
            throw new ProtocolException("HELLO with role " + role + " (a HELLO names NODE or HUB)");
        }
        String name = r.text("hub name", LinkLimits.MAX_HUB_NAME);
        List<String> addresses =
                textList(r, "link addresses", LinkLimits.MAX_LINK_ADDRESSES, LinkLimits.MAX_LINK_ADDRESS);
        return new HubHello(sender, nonce, name, addresses, r.u64("state number"));
    }

    private static void encodeDescription(WireWriter w, HubDescription d) {
        w.nodeId(d.hubId()).u64(d.stateNumber()).text(d.name());
        textList(w, d.linkAddresses());
        w.count(d.neighbours().size());
        for (NodeId neighbour : d.neighbours()) {
            w.nodeId(neighbour);
        }
        w.count(d.nodes().size());
        for (HubDescription.NodeEntry node : d.nodes()) {
            w.nodeId(node.nodeId()).text(node.identityText());
        }
        w.count(d.names().size());
        for (HubDescription.NameEntry name : d.names()) {
            w.text(name.name()).nodeId(name.nodeId()).u16(name.virtualPort());
        }
        w.count(d.neighbourRttMicros().size());
        for (long rtt : d.neighbourRttMicros()) {
            w.u32(rtt);
        }
    }

    private static HubDescription decodeDescription(WireReader r) throws ProtocolException {
        NodeId hubId = r.nodeId("hub id");
        long state = r.u64("state number");
        String name = r.text("hub name", LinkLimits.MAX_HUB_NAME);
        List<String> addresses =
                textList(r, "link addresses", LinkLimits.MAX_LINK_ADDRESSES, LinkLimits.MAX_LINK_ADDRESS);
        int neighbourCount = r.count("neighbours", LinkLimits.MAX_LIST, 2);
        List<NodeId> neighbours = new ArrayList<>(neighbourCount);
        for (int i = 0; i < neighbourCount; i++) {
            neighbours.add(r.nodeId("neighbour"));
        }
        int nodeCount = r.count("nodes", LinkLimits.MAX_LIST, 4);
        List<HubDescription.NodeEntry> nodes = new ArrayList<>(nodeCount);
        for (int i = 0; i < nodeCount; i++) {
            nodes.add(new HubDescription.NodeEntry(
                    r.nodeId("node id"), r.text("identity text", LinkLimits.MAX_IDENTITY_TEXT)));
        }
        int nameCount = r.count("names", LinkLimits.MAX_LIST, 6);
        List<HubDescription.NameEntry> names = new ArrayList<>(nameCount);
        for (int i = 0; i < nameCount; i++) {
            names.add(new HubDescription.NameEntry(
                    r.text("name", LinkLimits.MAX_NAME), r.nodeId("name owner"), r.u16("virtual port")));
        }
        // Always present (an empty list when there are none), so a description has one encoding and
        // a frame cut after its names is malformed rather than a valid shorter description.
        int rttCount = r.count("neighbour round-trip times", LinkLimits.MAX_LIST, 4);
        if (rttCount != 0 && rttCount != neighbourCount) {
            throw new ProtocolException(rttCount + " neighbour round-trip times for " + neighbourCount + " neighbours");
        }
        List<Long> rtts = new ArrayList<>(rttCount);
        for (int i = 0; i < rttCount; i++) {
            rtts.add(r.u32("neighbour round-trip time"));
        }
        return new HubDescription(hubId, state, name, addresses, neighbours, nodes, names, rtts);
    }

    private static GossipDigest decodeDigest(WireReader r) throws ProtocolException {
        int count = r.count("digest entries", LinkLimits.MAX_LIST, 10);
        List<GossipDigest.Entry> entries = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            entries.add(new GossipDigest.Entry(r.nodeId("digest hub id"), r.u64("digest state number")));
        }
        return new GossipDigest(entries);
    }

    private static void textList(WireWriter w, List<String> texts) {
        w.count(texts.size());
        for (String text : texts) {
            w.text(text);
        }
    }

    private static List<String> textList(WireReader r, String field, int maxCount, int maxEach)
            throws ProtocolException {
        int count = r.count(field, maxCount, 2);
        List<String> texts = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            texts.add(r.text(field, maxEach));
        }
        return texts;
    }
}
