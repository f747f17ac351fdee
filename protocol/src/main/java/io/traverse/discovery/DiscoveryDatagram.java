package io.traverse.discovery;

import io.traverse.protocol.ProtocolException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;

/**
 * The two datagrams of hub discovery: a node's PROBE and a hub's ANSWER. Codec only.
 *
 * <pre>
 * header (24 bytes): magic u32 "TRVD" | version u8 (1) | kind u8 (1 PROBE, 2 ANSWER) | reserved u16 (0) | nonce 16 bytes
 * PROBE:  header | 40 zero bytes               — exactly 64 bytes
 * ANSWER: header | name: u8 length + UTF-8 (at most 128 bytes)
 *                | u8 count (1-16) × link address: u8 family (0 = "the address this answer came from",
 *                                                     4 = IPv4, 6 = IPv6) | 0, 4 or 16 address bytes | u16 port (1-65535)
 * </pre>
 * Integers are big-endian. A probe is padded to 64 bytes so that an answer (at most
 * {@link #MAX_ANSWER_LENGTH} bytes) is never much larger than the probe that caused it: a forged
 * source address buys an attacker little amplification. Trailing bytes, unknown kinds, versions
 * and families are errors; decoders throw {@link ProtocolException} and nothing else.
 */
public final class DiscoveryDatagram {
    /** "TRVD" in ASCII. */
    public static final int MAGIC = 0x54525644;

    public static final int VERSION = 1;
    public static final int NONCE_LENGTH = 16;
    public static final int HEADER_LENGTH = 24;
    public static final int PROBE_LENGTH = 64;
    public static final int MAX_NAME_BYTES = 128;
    public static final int MAX_ADDRESSES = 16;
    public static final int MAX_ANSWER_LENGTH = HEADER_LENGTH + 1 + MAX_NAME_BYTES + 1 + MAX_ADDRESSES * (1 + 16 + 2);

    private static final int KIND_PROBE = 1;
    private static final int KIND_ANSWER = 2;
    private static final int FAMILY_SOURCE = 0;
    private static final int FAMILY_IPV4 = 4;
    private static final int FAMILY_IPV6 = 6;

    /** A node asking "which hubs are here?"; the nonce ties answers to this probe. */
    public record Probe(byte[] nonce) {
        public Probe {
            checkNonce(nonce);
            nonce = nonce.clone();
        }

        @Override
        public byte[] nonce() {
            return nonce.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Probe p && Arrays.equals(p.nonce, nonce);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(nonce);
        }

        @Override
        public String toString() {
            return "Probe[" + HexFormat.of().formatHex(nonce) + "]";
        }
    }

    /**
     * A hub's answer. A link address whose IP is the wildcard ({@code 0.0.0.0} or {@code ::})
     * stands for "the address this answer came from": a hub listening on every interface cannot
     * know which of its addresses the node can reach, the node can.
     */
    public record Answer(byte[] nonce, String hubName, List<InetSocketAddress> linkAddresses) {
        public Answer {
            checkNonce(nonce);
            nonce = nonce.clone();
            Objects.requireNonNull(hubName, "hubName");
            if (hubName.getBytes(StandardCharsets.UTF_8).length > MAX_NAME_BYTES) {
                throw new IllegalArgumentException(
                        "hub name '" + hubName + "' is longer than " + MAX_NAME_BYTES + " bytes");
            }
            if (linkAddresses.isEmpty() || linkAddresses.size() > MAX_ADDRESSES) {
                throw new IllegalArgumentException(
                        "an answer carries 1-" + MAX_ADDRESSES + " link addresses, not " + linkAddresses.size());
            }
            for (InetSocketAddress a : linkAddresses) {
                if (a.isUnresolved()) {
                    throw new IllegalArgumentException("link address " + a + " is not an IP address");
                }
                if (a.getPort() < 1) {
                    throw new IllegalArgumentException("link address " + a + " has no port");
                }
            }
            linkAddresses = List.copyOf(linkAddresses);
        }

        @Override
        public byte[] nonce() {
            return nonce.clone();
        }

        /** The link addresses with wildcards replaced by the address the answer came from. */
        public List<InetSocketAddress> linkAddressesSeenFrom(InetAddress answerSource) {
            List<InetSocketAddress> out = new ArrayList<>(linkAddresses.size());
            for (InetSocketAddress a : linkAddresses) {
                InetSocketAddress resolved =
                        a.getAddress().isAnyLocalAddress() ? new InetSocketAddress(answerSource, a.getPort()) : a;
                if (!out.contains(resolved)) {
                    out.add(resolved);
                }
            }
            return out;
        }

        /** True if this answers the probe with the given nonce. */
        public boolean answers(byte[] probeNonce) {
            return Arrays.equals(nonce, probeNonce);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Answer a
                    && Arrays.equals(a.nonce, nonce)
                    && a.hubName.equals(hubName)
                    && a.linkAddresses.equals(linkAddresses);
        }

        @Override
        public int hashCode() {
            return Objects.hash(Arrays.hashCode(nonce), hubName, linkAddresses);
        }

        @Override
        public String toString() {
            return "Answer[" + HexFormat.of().formatHex(nonce) + ", hub '" + hubName + "', " + linkAddresses + "]";
        }
    }

    private DiscoveryDatagram() {}

    public static byte[] encode(Probe probe) {
        ByteBuffer b = ByteBuffer.allocate(PROBE_LENGTH);
        header(b, KIND_PROBE, probe.nonce);
        return b.array(); // the rest is zero padding
    }

    public static byte[] encode(Answer answer) {
        byte[] name = answer.hubName().getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocate(MAX_ANSWER_LENGTH);
        header(b, KIND_ANSWER, answer.nonce);
        b.put((byte) name.length).put(name);
        b.put((byte) answer.linkAddresses().size());
        for (InetSocketAddress a : answer.linkAddresses()) {
            InetAddress ip = a.getAddress();
            if (ip.isAnyLocalAddress()) {
                b.put((byte) FAMILY_SOURCE);
            } else if (ip instanceof Inet4Address) {
                b.put((byte) FAMILY_IPV4).put(ip.getAddress());
            } else {
                b.put((byte) FAMILY_IPV6).put(ip.getAddress());
            }
            b.putShort((short) a.getPort());
        }
        byte[] out = new byte[b.position()];
        b.flip().get(out);
        return out;
    }

    /** Decodes a probe; anything else (an answer included) is a {@link ProtocolException}. */
    public static Probe decodeProbe(byte[] data, int length) throws ProtocolException {
        if (length != PROBE_LENGTH) {
            throw new ProtocolException("a probe is " + PROBE_LENGTH + " bytes, this datagram has " + length);
        }
        ByteBuffer b = ByteBuffer.wrap(data, 0, length);
        byte[] nonce = header(b, KIND_PROBE);
        while (b.hasRemaining()) {
            if (b.get() != 0) {
                throw new ProtocolException("probe padding is not zero");
            }
        }
        return new Probe(nonce);
    }

    /** Decodes an answer; anything else (a probe included) is a {@link ProtocolException}. */
    public static Answer decodeAnswer(byte[] data, int length) throws ProtocolException {
        if (length < HEADER_LENGTH || length > MAX_ANSWER_LENGTH) {
            throw new ProtocolException(
                    "an answer is " + HEADER_LENGTH + "-" + MAX_ANSWER_LENGTH + " bytes, this datagram has " + length);
        }
        ByteBuffer b = ByteBuffer.wrap(data, 0, length);
        try {
            byte[] nonce = header(b, KIND_ANSWER);
            int nameLength = b.get() & 0xff;
            if (nameLength > MAX_NAME_BYTES) {
                throw new ProtocolException("hub name of " + nameLength + " bytes is longer than " + MAX_NAME_BYTES);
            }
            if (nameLength > b.remaining()) {
                throw new ProtocolException("hub name of " + nameLength + " bytes runs past the datagram");
            }
            byte[] nameBytes = new byte[nameLength];
            b.get(nameBytes);
            String name = utf8(nameBytes);
            int count = b.get() & 0xff;
            if (count < 1 || count > MAX_ADDRESSES) {
                throw new ProtocolException("an answer carries 1-" + MAX_ADDRESSES + " link addresses, not " + count);
            }
            List<InetSocketAddress> addresses = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                int family = b.get() & 0xff;
                InetAddress ip = switch (family) {
                    case FAMILY_SOURCE -> InetAddress.getByAddress(new byte[4]);
                    case FAMILY_IPV4 -> address(b, 4);
                    case FAMILY_IPV6 -> address(b, 16);
                    default -> throw new ProtocolException("unknown address family " + family);
                };
                int port = b.getShort() & 0xffff;
                if (port == 0) {
                    throw new ProtocolException("link address " + (i + 1) + " has port 0");
                }
                addresses.add(new InetSocketAddress(ip, port));
            }
            if (b.hasRemaining()) {
                throw new ProtocolException(b.remaining() + " trailing bytes after the answer");
            }
            return new Answer(nonce, name, addresses);
        } catch (BufferUnderflowException e) {
            throw new ProtocolException("answer truncated");
        } catch (UnknownHostException e) {
            throw new ProtocolException("bad address: " + e.getMessage());
        }
    }

    private static void header(ByteBuffer b, int kind, byte[] nonce) {
        b.putInt(MAGIC).put((byte) VERSION).put((byte) kind).putShort((short) 0).put(nonce);
    }

    private static byte[] header(ByteBuffer b, int expectedKind) throws ProtocolException {
        int magic = b.getInt();
        if (magic != MAGIC) {
            throw new ProtocolException(String.format("wrong magic 0x%08x (expected 0x%08x)", magic, MAGIC));
        }
        int version = b.get() & 0xff;
        if (version != VERSION) {
            throw new ProtocolException(
                    "unsupported discovery version " + version + " (this side speaks " + VERSION + ")");
        }
        int kind = b.get() & 0xff;
        if (kind != expectedKind) {
            throw new ProtocolException("datagram kind " + kind + " where " + expectedKind + " was expected");
        }
        int reserved = b.getShort() & 0xffff;
        if (reserved != 0) {
            throw new ProtocolException("reserved field is " + reserved + ", not 0");
        }
        byte[] nonce = new byte[NONCE_LENGTH];
        b.get(nonce);
        return nonce;
    }

    private static InetAddress address(ByteBuffer b, int length) throws UnknownHostException, ProtocolException {
        byte[] bytes = new byte[length];
        b.get(bytes);
        InetAddress ip = InetAddress.getByAddress(bytes);
        if (ip.isAnyLocalAddress() || ip.isMulticastAddress()) {
            // the wildcard has its own family code; a multicast address cannot be dialled
            throw new ProtocolException("link address " + ip.getHostAddress() + " cannot be dialled");
        }
        return ip;
    }

    private static String utf8(byte[] bytes) throws ProtocolException {
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes))
                    .toString();
        } catch (CharacterCodingException e) {
            throw new ProtocolException("hub name is not UTF-8");
        }
    }

    private static void checkNonce(byte[] nonce) {
        if (nonce == null || nonce.length != NONCE_LENGTH) {
            throw new IllegalArgumentException("a nonce is " + NONCE_LENGTH + " bytes");
        }
    }
}
