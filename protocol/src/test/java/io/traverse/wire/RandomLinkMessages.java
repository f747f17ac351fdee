package io.traverse.wire;

import io.traverse.identity.NodeId;
import io.traverse.identity.RandomIdentities;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Supplier;

/** Seeded generators of valid link messages of every type, for round trips and mutation fuzzing. */
final class RandomLinkMessages {
    private static final String NAME_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-.";
    private static final String FREE_TEXT = "abc xyz 0123 -_.:/ \u00e9\u00fc\u4e2d\ud83d\ude00";

    private RandomLinkMessages() {}

    /** One message of each type (both HELLOs), in type order. */
    static List<LinkMessage> oneOfEach(Random r) {
        List<LinkMessage> all = new ArrayList<>();
        for (int kind = 0; kind < KINDS; kind++) {
            all.add(of(kind, r));
        }
        return all;
    }

    static final int KINDS = 20;

    static LinkMessage any(Random r) {
        return of(r.nextInt(KINDS), r);
    }

    static LinkMessage of(int kind, Random r) {
        return switch (kind) {
            case 0 ->
                new NodeHello(
                        id(r),
                        bytes(r, LinkLimits.NONCE_LENGTH),
                        RandomIdentities.identity(r).toText());
            case 1 ->
                new HubHello(id(r), bytes(r, LinkLimits.NONCE_LENGTH), hubName(r), linkAddresses(r), r.nextLong());
            case 2 -> new Challenge(id(r), bytes(r, LinkLimits.NONCE_LENGTH));
            case 3 -> new Auth(bytes(r, LinkLimits.MAC_LENGTH));
            case 4 ->
                new Welcome(
                        bytes(r, LinkLimits.MAC_LENGTH),
                        new InetSocketAddress(RandomIdentities.ip(r), r.nextInt(65536)),
                        LinkLimits.MIN_KEEPALIVE_MILLIS
                                + r.nextInt(LinkLimits.MAX_KEEPALIVE_MILLIS - LinkLimits.MIN_KEEPALIVE_MILLIS + 1));
            case 5 -> new Reject(RejectCode.values()[r.nextInt(RejectCode.values().length)], text(r, 40));
            case 6 -> new Ping(r.nextLong());
            case 7 -> new Pong(r.nextLong());
            case 8 -> new NodeUpdate(RandomIdentities.identity(r).toText());
            case 9 -> new NameBind(r.nextInt(), name(r), 1 + r.nextInt(65535));
            case 10 -> new NameRelease(r.nextInt(), name(r));
            case 11 ->
                new Lookup(
                        r.nextInt(),
                        LookupKind.values()[r.nextInt(LookupKind.values().length)],
                        r.nextBoolean() ? "" : name(r));
            case 12 -> new Result(r.nextInt(), status(r), text(r, 30));
            case 13 -> new LookupResult(r.nextInt(), status(r), list(r, 6, () -> text(r, 60)));
            case 14 -> sideMessage(r);
            case 15 -> new Gossip(description(r));
            case 16 -> relay(r);
            case 17 -> new DataLinkSwitch();
            case 18 -> new GossipDigest(list(r, 20, () -> new GossipDigest.Entry(id(r), r.nextLong())));
            default -> new GossipSummary(r.nextInt() & 0xFFFF_FFFFL, r.nextLong());
        };
    }

    static SideMessage sideMessage(Random r) {
        SideMessageKind kind = SideMessageKind.values()[r.nextInt(SideMessageKind.values().length)];
        SideMessage request = new SideMessage(
                r.nextLong(),
                id(r),
                id(r),
                r.nextInt(256),
                SideMessageKind.REQUEST,
                r.nextBoolean() ? "" : service(r),
                bytes(r, r.nextInt(200)));
        return switch (kind) {
            case REQUEST -> request;
            case REPLY -> request.reply(bytes(r, r.nextInt(100)));
            case ERROR ->
                request.error(SideMessageError.values()[r.nextInt(SideMessageError.values().length)], text(r, 50));
        };
    }

    static Relay relay(Random r) {
        long connectionId = r.nextLong();
        NodeId opener = id(r);
        NodeId acceptor = id(r);
        RelayDirection direction = RelayDirection.values()[r.nextInt(2)];
        boolean hold = r.nextBoolean();
        java.nio.ByteBuffer openPayload = java.nio.ByteBuffer.allocate(hold ? 7 : 6)
                .putShort((short) (1 + r.nextInt(65535)))
                .putInt(r.nextInt());
        if (hold) {
            openPayload.put((byte) 1);
        }
        Relay open = new Relay(
                connectionId,
                opener,
                acceptor,
                RelayDirection.TOWARD_ACCEPTOR,
                r.nextInt(256),
                RelayKind.OPEN,
                openPayload.array());
        return switch (RelayKind.values()[r.nextInt(RelayKind.values().length)]) {
            case OPEN -> open;
            case ACCEPT -> open.accept(Integer.toUnsignedLong(r.nextInt()));
            case REFUSE -> open.refuse(r.nextInt(256), text(r, 50));
            case RESET ->
                new Relay(
                        connectionId,
                        opener,
                        acceptor,
                        direction,
                        r.nextInt(256),
                        RelayKind.RESET,
                        text(r, 50).getBytes(java.nio.charset.StandardCharsets.UTF_8));
            // Mostly small, sometimes the largest payload, so the u16 length's top values are exercised too.
            case DATA ->
                new Relay(
                        connectionId,
                        opener,
                        acceptor,
                        direction,
                        r.nextInt(256),
                        RelayKind.DATA,
                        Relay.data(
                                        connectionId,
                                        opener,
                                        acceptor,
                                        direction,
                                        r.nextLong() & Long.MAX_VALUE,
                                        bytes(r, r.nextInt(20) == 0 ? Relay.MAX_DATA_BYTES : 1 + r.nextInt(200)))
                                .payloadBytes());
            case SEALED ->
                Relay.sealedFrame(
                        connectionId,
                        opener,
                        acceptor,
                        direction,
                        io.netty.buffer.Unpooled.buffer()
                                .writeLong(r.nextLong() & Long.MAX_VALUE)
                                .writeBytes(bytes(
                                        r,
                                        Relay.SEAL_OVERHEAD
                                                + (r.nextInt(20) == 0 ? Relay.MAX_SEALED_BYTES : 1 + r.nextInt(200)))));
            case CREDIT -> Relay.credit(connectionId, opener, acceptor, direction, r.nextLong() & Long.MAX_VALUE);
            case FIN -> Relay.fin(connectionId, opener, acceptor, direction, r.nextLong() & Long.MAX_VALUE);
            case PING -> Relay.ping(connectionId, opener, acceptor, direction);
            case PONG -> Relay.ping(connectionId, opener, acceptor, direction).pong(r.nextLong() & Long.MAX_VALUE);
            case CONFIRM ->
                Relay.frame(
                        connectionId, opener, acceptor, RelayDirection.TOWARD_ACCEPTOR, RelayKind.CONFIRM, new byte[0]);
        };
    }

    static String service(Random r) {
        String name = name(r);
        return name.substring(0, Math.min(LinkLimits.MAX_SERVICE, name.length()));
    }

    static HubDescription description(Random r) {
        List<NodeId> neighbours = list(r, 5, () -> id(r));
        List<Long> rtts = r.nextBoolean()
                ? List.of()
                : neighbours.stream()
                        .map(n -> r.nextInt(4) == 0 ? HubDescription.RTT_UNKNOWN : (long) r.nextInt(Integer.MAX_VALUE))
                        .toList();
        return new HubDescription(
                id(r),
                r.nextLong(),
                hubName(r),
                linkAddresses(r),
                neighbours,
                list(
                        r,
                        4,
                        () -> new HubDescription.NodeEntry(
                                id(r), RandomIdentities.identity(r).toText())),
                list(r, 4, () -> new HubDescription.NameEntry(name(r), id(r), 1 + r.nextInt(65535))),
                rtts);
    }

    static NodeId id(Random r) {
        return r.nextBoolean() ? NodeId.of(RandomIdentities.configuredId(r)) : NodeId.fromBytes(bytes(r, 16));
    }

    static byte[] bytes(Random r, int n) {
        byte[] b = new byte[n];
        r.nextBytes(b);
        return b;
    }

    static String name(Random r) {
        StringBuilder sb = new StringBuilder();
        int n = 1 + r.nextInt(r.nextInt(10) == 0 ? LinkLimits.MAX_NAME : 20);
        for (int i = 0; i < n; i++) {
            sb.append(NAME_CHARS.charAt(r.nextInt(NAME_CHARS.length())));
        }
        return sb.toString();
    }

    static String hubName(Random r) {
        return switch (r.nextInt(3)) {
            case 0 -> name(r);
            case 1 -> "hub-" + r.nextInt(1000) + ":" + (1 + r.nextInt(65535));
            default -> "[fd00::" + Integer.toHexString(r.nextInt(65536)) + "]:17000";
        };
    }

    static List<String> linkAddresses(Random r) {
        return list(
                r,
                3,
                () -> r.nextBoolean()
                        ? LinkAddress.format(new InetSocketAddress(RandomIdentities.ip(r), 1 + r.nextInt(65535)))
                        : "hub" + r.nextInt(100) + ".example.org:" + (1 + r.nextInt(65535)));
    }

    static String text(Random r, int maxChars) {
        StringBuilder sb = new StringBuilder();
        int n = r.nextInt(maxChars + 1);
        while (sb.length() < n) {
            int at = r.nextInt(FREE_TEXT.length());
            if (Character.isLowSurrogate(FREE_TEXT.charAt(at))) {
                at--;
            }
            sb.appendCodePoint(FREE_TEXT.codePointAt(at));
        }
        return sb.toString();
    }

    static ResultStatus status(Random r) {
        return ResultStatus.values()[r.nextInt(ResultStatus.values().length)];
    }

    static <T> List<T> list(Random r, int max, Supplier<T> element) {
        int n = r.nextInt(max + 1);
        List<T> list = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            list.add(element.get());
        }
        return list;
    }
}
