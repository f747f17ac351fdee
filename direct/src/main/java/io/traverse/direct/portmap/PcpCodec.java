package io.traverse.direct.portmap;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The PCP messages this node sends and reads (RFC 6887 §7 and §11): MAP requests for TCP with
 * no options, and their responses. A response is checked in full: length (24 to 1100 bytes, a
 * multiple of 4), version, the R bit and opcode, the result code, and the mapping nonce. A
 * version-0 reply is how a NAT-PMP-only router says it does not speak PCP (§9).
 */
final class PcpCodec {
    static final int VERSION = 2;
    static final int OP_MAP = 1;
    static final int NONCE_LENGTH = 12;
    private static final int TCP = 6;
    private static final int HEADER_LENGTH = 24;
    private static final int MAP_LENGTH = 36;
    private static final int MAX_LENGTH = 1100;

    /** A parsed MAP response. */
    record MapResponse(
            long lifetimeSeconds, long epochSeconds, int internalPort, int externalPort, InetAddress externalAddress) {}

    private PcpCodec() {}

    /**
     * A MAP request for TCP {@code internalPort} of {@code client}; lifetime 0 deletes the mapping
     * named by the same nonce.
     */
    static byte[] mapRequest(
            InetAddress client,
            byte[] nonce,
            int internalPort,
            int suggestedExternalPort,
            InetAddress suggestedExternal,
            long lifetimeSeconds) {
        if (nonce.length != NONCE_LENGTH) {
            throw new IllegalArgumentException("a PCP nonce has " + NONCE_LENGTH + " bytes, not " + nonce.length);
        }
        if (internalPort < 1 || internalPort > 65535 || suggestedExternalPort < 0 || suggestedExternalPort > 65535) {
            throw new IllegalArgumentException("ports " + internalPort + "/" + suggestedExternalPort + " out of range");
        }
        if (lifetimeSeconds < 0 || lifetimeSeconds > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("lifetime " + lifetimeSeconds + " s is not an unsigned 32-bit number");
        }
        ByteBuffer b = ByteBuffer.allocate(HEADER_LENGTH + MAP_LENGTH);
        b.put((byte) VERSION)
                .put((byte) OP_MAP)
                .putShort((short) 0)
                .putInt((int) lifetimeSeconds)
                .put(ipv6Form(client));
        b.put(nonce)
                .put((byte) TCP)
                .put(new byte[3])
                .putShort((short) internalPort)
                .putShort((short) suggestedExternalPort);
        b.put(suggestedExternal == null ? ipv6Form(null) : ipv6Form(suggestedExternal));
        return b.array();
    }

    static MapResponse parseMapResponse(byte[] data, int length, byte[] nonce) throws PortMappingException {
        if (length < 4) {
            throw new PortMappingException("PCP response of " + length + " bytes is too short for a header");
        }
        ByteBuffer b = ByteBuffer.wrap(data, 0, length);
        int version = Byte.toUnsignedInt(b.get());
        if (version == NatPmpCodec.VERSION) {
            throw PortMappingException.refusal("the router speaks NAT-PMP only (it answered PCP with version 0)");
        }
        if (version != VERSION) {
            throw new PortMappingException("PCP response has version " + version + ", not " + VERSION);
        }
        if (length < HEADER_LENGTH || length > MAX_LENGTH || length % 4 != 0) {
            throw new PortMappingException(
                    "PCP response of " + length + " bytes is not 24-1100 bytes in whole 32-bit words");
        }
        int rOp = Byte.toUnsignedInt(b.get());
        if ((rOp & 0x80) == 0 || (rOp & 0x7F) != OP_MAP) {
            throw new PortMappingException(
                    "PCP response has R/opcode 0x" + Integer.toHexString(rOp) + ", expected 0x81 (MAP response)");
        }
        b.get(); // reserved
        int result = Byte.toUnsignedInt(b.get());
        long lifetime = Integer.toUnsignedLong(b.getInt());
        long epoch = Integer.toUnsignedLong(b.getInt());
        b.position(HEADER_LENGTH);
        boolean hasPayload = length >= HEADER_LENGTH + MAP_LENGTH;
        if (hasPayload) {
            // Matched to our request before the result counts (§11.5): an error response for
            // another nonce is a stray or off-path forgery, not the router's answer to us.
            byte[] echoed = new byte[NONCE_LENGTH];
            b.get(echoed);
            if (!Arrays.equals(echoed, nonce)) {
                throw new PortMappingException("PCP MAP response carries another mapping's nonce");
            }
            int protocol = Byte.toUnsignedInt(b.get());
            if (protocol != TCP) {
                throw new PortMappingException("PCP MAP response is for protocol " + protocol + ", not TCP");
            }
        }
        if (result != 0) {
            throw PortMappingException.refusal(
                    "PCP router refused: " + resultText(result) + " (result code " + result + ")");
        }
        if (!hasPayload) {
            throw new PortMappingException("PCP MAP response of " + length + " bytes has no room for the MAP payload");
        }
        b.position(b.position() + 3);
        int internal = Short.toUnsignedInt(b.getShort());
        int external = Short.toUnsignedInt(b.getShort());
        byte[] ip = new byte[16];
        b.get(ip);
        return new MapResponse(lifetime, epoch, internal, external, fromIpv6Form(ip));
    }

    static String resultText(int code) {
        return switch (code) {
            case 0 -> "success";
            case 1 -> "unsupported version";
            case 2 -> "not authorized";
            case 3 -> "malformed request";
            case 4 -> "unsupported opcode";
            case 5 -> "unsupported option";
            case 6 -> "malformed option";
            case 7 -> "network failure";
            case 8 -> "no resources";
            case 9 -> "unsupported protocol";
            case 10 -> "user exceeded quota";
            case 11 -> "cannot provide the external address or port";
            case 12 -> "address mismatch (the router saw another source address)";
            case 13 -> "excessive remote peers";
            default -> "unknown result";
        };
    }

    /** IPv6 addresses as they are; IPv4 as IPv4-mapped {@code ::ffff:a.b.c.d}; null as {@code ::ffff:0.0.0.0} (RFC 6887 §11.1). */
    static byte[] ipv6Form(InetAddress address) {
        byte[] out = new byte[16];
        if (address instanceof Inet6Address) {
            return address.getAddress();
        }
        out[10] = (byte) 0xFF;
        out[11] = (byte) 0xFF;
        if (address != null) {
            System.arraycopy(address.getAddress(), 0, out, 12, 4);
        }
        return out;
    }

    /** Inverse of {@link #ipv6Form}: an IPv4-mapped address comes back as an {@link Inet4Address}. */
    static InetAddress fromIpv6Form(byte[] ip) throws PortMappingException {
        try {
            // The JDK turns an IPv4-mapped address into an Inet4Address by itself.
            return InetAddress.getByAddress(ip);
        } catch (UnknownHostException e) {
            throw new PortMappingException("PCP response holds a malformed address", e);
        }
    }
}
