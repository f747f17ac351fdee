package io.traverse.splice;

import io.traverse.protocol.ProtocolException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The two side-channel messages of the splice module (service {@value #SERVICE}).
 *
 * <pre>
 * request: version u8 (2) | flags u8 (bit 0: probe) | virtual port u16 | time left ms u32
 *          | source round trip µs u32 (its last splice request's, else its hub's) | endpoint
 * answer:  status u8 | READY: fire delay µs u32 | processing µs u32 | endpoint
 *                    | otherwise: reason, rest, UTF-8
 * endpoint: family u8 (4|6) | address 4|16 bytes | candidates u8 (1-16) | rounds u8 (1-8)
 *           | first port u16, one per round
 * </pre>
 * The target counts its rounds from sending READY, the source from its arrival; in the rounds the
 * source fires first, the target waits the fire delay ({@link SpliceSchedule}). Version 1 had the
 * source align its start to the target's clock instead; the two do not mix.
 */
final class SpliceMessages {
    static final String SERVICE = "traverse.splice";
    static final int VERSION = 2;
    static final int MAX_PORTS = 16;
    static final int MAX_ROUNDS = 8;
    private static final int MAX_REASON_BYTES = 1024;

    /** What the asked node did. */
    enum Status {
        /** It is firing SYNs from the endpoint in the answer. */
        READY,
        /** Nothing listens on the virtual port: definitive, like a direct answer. */
        TARGET_ANSWER,
        /** Its NAT cannot be spliced (random ports) or it has no hub to echo at: other modules may work. */
        UNSPLICEABLE,
        /** The request made no sense to it. */
        BAD_REQUEST;

        static Status of(int code) throws ProtocolException {
            if (code < 0 || code >= values().length) {
                throw new ProtocolException("unknown splice status " + code);
            }
            return values()[code];
        }
    }

    /**
     * A public address and, for each round, the first of {@code candidates} consecutive ports the
     * round's SYNs may come from.
     */
    record PublicEndpoint(InetAddress address, List<Integer> roundPorts, int candidates) {
        PublicEndpoint {
            roundPorts = List.copyOf(roundPorts);
            if (candidates < 1 || candidates > MAX_PORTS) {
                throw new IllegalArgumentException(candidates + " candidate ports are not 1-" + MAX_PORTS);
            }
            if (roundPorts.isEmpty() || roundPorts.size() > MAX_ROUNDS) {
                throw new IllegalArgumentException(roundPorts.size() + " rounds are not 1-" + MAX_ROUNDS);
            }
            for (int first : roundPorts) {
                if (first < 1 || first + candidates - 1 > 65535) {
                    throw new IllegalArgumentException(
                            "ports " + first + " (" + candidates + ") are not within 1-65535");
                }
            }
        }

        /** The ports of one round. */
        List<Integer> ports(int round) {
            List<Integer> ports = new ArrayList<>(candidates);
            for (int i = 0; i < candidates; i++) {
                ports.add(roundPorts.get(round) + i);
            }
            return ports;
        }
    }

    record Request(boolean probe, int virtualPort, long millisLeft, long hubRttMicros, PublicEndpoint endpoint) {}

    record Answer(Status status, long fireDelayMicros, long processingMicros, PublicEndpoint endpoint, String reason) {
        static Answer ready(long fireDelayMicros, long processingMicros, PublicEndpoint endpoint) {
            return new Answer(Status.READY, fireDelayMicros, processingMicros, endpoint, "");
        }

        static Answer refused(Status status, String reason) {
            return new Answer(status, 0, 0, null, reason);
        }
    }

    private SpliceMessages() {}

    static byte[] encode(Request r) {
        ByteBuffer out = ByteBuffer.allocate(1 + 1 + 2 + 4 + 4 + endpointLength(r.endpoint()));
        out.put((byte) VERSION)
                .put((byte) (r.probe() ? 1 : 0))
                .putShort((short) r.virtualPort())
                .putInt((int) clampU32(r.millisLeft()))
                .putInt((int) clampU32(r.hubRttMicros()));
        putEndpoint(out, r.endpoint());
        return out.array();
    }

    static Request decodeRequest(byte[] bytes) throws ProtocolException {
        try {
            ByteBuffer in = ByteBuffer.wrap(bytes);
            int version = in.get() & 0xff;
            if (version != VERSION) {
                throw new ProtocolException(
                        "splice request version " + version + " (this node speaks " + VERSION + ")");
            }
            int flags = in.get() & 0xff;
            if ((flags & ~1) != 0) {
                throw new ProtocolException("splice request flags " + flags + " (only bit 0 is defined)");
            }
            int port = in.getShort() & 0xffff;
            if (port == 0) {
                throw new ProtocolException("virtual port 0 is not a port");
            }
            long millisLeft = in.getInt() & 0xFFFF_FFFFL;
            long rtt = in.getInt() & 0xFFFF_FFFFL;
            PublicEndpoint endpoint = endpoint(in);
            requireConsumed(in, "request");
            return new Request((flags & 1) != 0, port, millisLeft, rtt, endpoint);
        } catch (BufferUnderflowException e) {
            throw new ProtocolException("splice request of " + bytes.length + " bytes is truncated");
        }
    }

    static byte[] encode(Answer a) {
        if (a.status() == Status.READY) {
            ByteBuffer out = ByteBuffer.allocate(1 + 4 + 4 + endpointLength(a.endpoint()));
            out.put((byte) Status.READY.ordinal())
                    .putInt((int) clampU32(a.fireDelayMicros()))
                    .putInt((int) clampU32(a.processingMicros()));
            putEndpoint(out, a.endpoint());
            return out.array();
        }
        byte[] reason = a.reason().getBytes(StandardCharsets.UTF_8);
        int length = utf8Prefix(reason, MAX_REASON_BYTES);
        return ByteBuffer.allocate(1 + length)
                .put((byte) a.status().ordinal())
                .put(reason, 0, length)
                .array();
    }

    static Answer decodeAnswer(byte[] bytes) throws ProtocolException {
        if (bytes.length == 0) {
            throw new ProtocolException("empty splice answer");
        }
        Status status = Status.of(bytes[0] & 0xff);
        if (status != Status.READY) {
            return Answer.refused(status, new String(bytes, 1, bytes.length - 1, StandardCharsets.UTF_8));
        }
        try {
            ByteBuffer in = ByteBuffer.wrap(bytes, 1, bytes.length - 1);
            long delay = in.getInt() & 0xFFFF_FFFFL;
            long processing = in.getInt() & 0xFFFF_FFFFL;
            PublicEndpoint endpoint = endpoint(in);
            requireConsumed(in, "answer");
            return Answer.ready(delay, processing, endpoint);
        } catch (BufferUnderflowException e) {
            throw new ProtocolException("splice answer of " + bytes.length + " bytes is truncated");
        }
    }

    /** The length of the longest prefix of at most {@code max} bytes that ends on a character boundary. */
    private static int utf8Prefix(byte[] utf8, int max) {
        if (utf8.length <= max) {
            return utf8.length;
        }
        int end = max;
        while (end > 0 && (utf8[end] & 0xc0) == 0x80) { // a continuation byte: the character began earlier
            end--;
        }
        return end;
    }

    private static int endpointLength(PublicEndpoint e) {
        return 1 + e.address().getAddress().length + 1 + 1 + 2 * e.roundPorts().size();
    }

    private static void putEndpoint(ByteBuffer out, PublicEndpoint e) {
        byte[] address = e.address().getAddress();
        out.put((byte) (address.length == 4 ? 4 : 6))
                .put(address)
                .put((byte) e.candidates())
                .put((byte) e.roundPorts().size());
        for (int port : e.roundPorts()) {
            out.putShort((short) port);
        }
    }

    private static PublicEndpoint endpoint(ByteBuffer in) throws ProtocolException {
        int family = in.get() & 0xff;
        byte[] address = switch (family) {
            case 4 -> new byte[4];
            case 6 -> new byte[16];
            default -> throw new ProtocolException("endpoint address family " + family + " (4 or 6)");
        };
        in.get(address);
        int candidates = in.get() & 0xff;
        int rounds = in.get() & 0xff;
        if (rounds > MAX_ROUNDS) {
            throw new ProtocolException("endpoint: " + rounds + " rounds (at most " + MAX_ROUNDS + ")");
        }
        List<Integer> firsts = new ArrayList<>(rounds);
        for (int i = 0; i < rounds; i++) {
            firsts.add(in.getShort() & 0xffff);
        }
        try {
            return new PublicEndpoint(InetAddress.getByAddress(address), firsts, candidates);
        } catch (IllegalArgumentException | UnknownHostException e) {
            throw new ProtocolException("endpoint: " + e.getMessage());
        }
    }

    private static void requireConsumed(ByteBuffer in, String what) throws ProtocolException {
        if (in.hasRemaining()) {
            throw new ProtocolException("splice " + what + " has " + in.remaining() + " bytes too many");
        }
    }

    private static long clampU32(long v) {
        return Math.max(0, Math.min(v, 0xFFFF_FFFFL));
    }
}
