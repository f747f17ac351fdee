package io.traverse.wire;

import io.traverse.protocol.ProtocolException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;

/**
 * The hub's answer to a connection opened with preamble role {@link LinkRole#ECHO} (the splice
 * module's external endpoint discovery, paper §3.2.3): after its own preamble, the address and
 * port it sees the connection come from, then it closes. No HELLO, no authentication: a caller
 * learns only its own public side.
 *
 * <pre>
 * echo: family u8 (4 or 6) | address 4 or 16 bytes | port u16
 * </pre>
 */
public final class EndpointEcho {
    /** The longest echo: an IPv6 one. */
    public static final int MAX_LENGTH = 1 + 16 + 2;

    private EndpointEcho() {}

    public static byte[] encode(InetSocketAddress seen) {
        byte[] address = seen.getAddress().getAddress();
        return ByteBuffer.allocate(1 + address.length + 2)
                .put((byte) (address.length == 4 ? 4 : 6))
                .put(address)
                .putShort((short) seen.getPort())
                .array();
    }

    /** The length of the echo whose first byte is {@code family}. */
    public static int length(int family) throws ProtocolException {
        return switch (family) {
            case 4 -> 1 + 4 + 2;
            case 6 -> MAX_LENGTH;
            default -> throw new ProtocolException("endpoint echo with unknown address family " + family);
        };
    }

    /** Decodes a whole echo ({@link #length} bytes). */
    public static InetSocketAddress decode(byte[] echo) throws ProtocolException {
        if (echo.length == 0 || echo.length != length(echo[0] & 0xff)) {
            throw new ProtocolException("endpoint echo of " + echo.length + " bytes is malformed");
        }
        byte[] address = new byte[echo.length - 3];
        System.arraycopy(echo, 1, address, 0, address.length);
        int port = ((echo[echo.length - 2] & 0xff) << 8) | (echo[echo.length - 1] & 0xff);
        if (port == 0) {
            throw new ProtocolException("endpoint echo names port 0");
        }
        try {
            return new InetSocketAddress(InetAddress.getByAddress(address), port);
        } catch (UnknownHostException e) {
            throw new ProtocolException("endpoint echo address: " + e.getMessage());
        }
    }
}
