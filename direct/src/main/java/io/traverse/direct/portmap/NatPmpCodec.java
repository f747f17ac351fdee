package io.traverse.direct.portmap;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;

/**
 * The NAT-PMP messages this node sends and reads (RFC 6886 §3.2 and §3.3): the external address
 * request and TCP mapping requests (lifetime 0 deletes). Replies are checked in full: length,
 * version 0, the opcode answering ours, and the result code.
 */
final class NatPmpCodec {
    static final int VERSION = 0;
    static final int OP_EXTERNAL_ADDRESS = 0;
    static final int OP_MAP_TCP = 2;
    private static final int REPLY = 128;
    private static final int EXTERNAL_ADDRESS_REPLY_LENGTH = 12;
    private static final int MAP_REPLY_LENGTH = 16;

    /** A parsed external-address reply. */
    record ExternalAddressReply(long epochSeconds, Inet4Address address) {}

    /** A parsed mapping reply. */
    record MapReply(long epochSeconds, int internalPort, int externalPort, long lifetimeSeconds) {}

    private NatPmpCodec() {}

    static byte[] externalAddressRequest() {
        return new byte[] {VERSION, OP_EXTERNAL_ADDRESS};
    }

    /** A TCP mapping request; {@code lifetimeSeconds} 0 with {@code suggestedExternalPort} 0 deletes the mapping. */
    static byte[] mapTcpRequest(int internalPort, int suggestedExternalPort, long lifetimeSeconds) {
        checkPort(internalPort, false);
        checkPort(suggestedExternalPort, true);
        if (lifetimeSeconds < 0 || lifetimeSeconds > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("lifetime " + lifetimeSeconds + " s is not an unsigned 32-bit number");
        }
        ByteBuffer b = ByteBuffer.allocate(12);
        b.put((byte) VERSION)
                .put((byte) OP_MAP_TCP)
                .putShort((short) 0)
                .putShort((short) internalPort)
                .putShort((short) suggestedExternalPort)
                .putInt((int) lifetimeSeconds);
        return b.array();
    }

    static ExternalAddressReply parseExternalAddressReply(byte[] data, int length) throws PortMappingException {
        ByteBuffer b = checkedReply(data, length, OP_EXTERNAL_ADDRESS, EXTERNAL_ADDRESS_REPLY_LENGTH);
        long epoch = Integer.toUnsignedLong(b.getInt());
        byte[] ip = new byte[4];
        b.get(ip);
        if (ip[0] == 0 && ip[1] == 0 && ip[2] == 0 && ip[3] == 0) {
            // The router's answer (it has no public address yet), not a damaged datagram.
            throw PortMappingException.refusal("NAT-PMP router has no external address (0.0.0.0)");
        }
        try {
            return new ExternalAddressReply(epoch, (Inet4Address) InetAddress.getByAddress(ip));
        } catch (UnknownHostException e) {
            throw new PortMappingException("NAT-PMP reply holds no IPv4 address", e);
        }
    }

    static MapReply parseMapReply(byte[] data, int length) throws PortMappingException {
        ByteBuffer b = checkedReply(data, length, OP_MAP_TCP, MAP_REPLY_LENGTH);
        long epoch = Integer.toUnsignedLong(b.getInt());
        int internal = Short.toUnsignedInt(b.getShort());
        int external = Short.toUnsignedInt(b.getShort());
        long lifetime = Integer.toUnsignedLong(b.getInt());
        return new MapReply(epoch, internal, external, lifetime);
    }

    /** Checks the common reply header; positions the buffer after the result code. */
    private static ByteBuffer checkedReply(byte[] data, int length, int opcode, int expectedLength)
            throws PortMappingException {
        if (length < 4) {
            throw new PortMappingException("NAT-PMP reply of " + length + " bytes is too short for a header");
        }
        ByteBuffer b = ByteBuffer.wrap(data, 0, length);
        int version = Byte.toUnsignedInt(b.get());
        int op = Byte.toUnsignedInt(b.get());
        int result = Short.toUnsignedInt(b.getShort());
        if (version != VERSION) {
            throw new PortMappingException("NAT-PMP reply has version " + version + ", not " + VERSION);
        }
        if (op != REPLY + opcode) {
            throw new PortMappingException("NAT-PMP reply has opcode " + op + ", expected " + (REPLY + opcode));
        }
        if (result != 0) {
            throw PortMappingException.refusal(
                    "NAT-PMP router refused: " + resultText(result) + " (result code " + result + ")");
        }
        if (length < expectedLength) {
            throw new PortMappingException("NAT-PMP reply of " + length + " bytes is shorter than " + expectedLength);
        }
        return b;
    }

    static String resultText(int code) {
        return switch (code) {
            case 0 -> "success";
            case 1 -> "unsupported version";
            case 2 -> "not authorized/refused";
            case 3 -> "network failure";
            case 4 -> "out of resources";
            case 5 -> "unsupported opcode";
            default -> "unknown result";
        };
    }

    private static void checkPort(int port, boolean zeroAllowed) {
        if (port < (zeroAllowed ? 0 : 1) || port > 65535) {
            throw new IllegalArgumentException("port " + port + " is not within " + (zeroAllowed ? 0 : 1) + "-65535");
        }
    }
}
