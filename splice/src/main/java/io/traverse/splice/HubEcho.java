package io.traverse.splice;

import io.traverse.protocol.ProtocolException;
import io.traverse.wire.EndpointEcho;
import io.traverse.wire.LinkPreamble;
import io.traverse.wire.LinkRole;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;

/**
 * Asks a hub where a connection from a given local port comes from (preamble role ECHO,
 * docs/protocol.md "Endpoint echo"): the public address and port of this node's NAT mapping.
 */
final class HubEcho {
    /** What one echo showed and how long the TCP connect to the hub took (one round trip). */
    record Result(int localPort, InetSocketAddress seen, long connectNanos) {
        PortPrediction.Echo echo() {
            return new PortPrediction.Echo(localPort, seen.getPort());
        }
    }

    private HubEcho() {}

    /**
     * One echo from {@code localPort} (0: an ephemeral port) of {@code bindAddress} (null: any).
     * The socket is bound with SO_REUSEADDR, so the same port can dial the peer right after.
     */
    static Result ask(InetSocketAddress hub, InetAddress bindAddress, int localPort, int timeoutMillis)
            throws IOException {
        try (Socket socket = new Socket()) {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(bindAddress, localPort));
            long start = System.nanoTime();
            socket.connect(hub, Math.max(1, timeoutMillis));
            long connectNanos = System.nanoTime() - start;
            socket.setSoTimeout(Math.max(1, timeoutMillis));
            ByteBuffer preamble = ByteBuffer.allocate(LinkPreamble.LENGTH)
                    .putInt(LinkPreamble.MAGIC)
                    .putShort((short) LinkPreamble.VERSION)
                    .putShort((short) LinkRole.ECHO.code());
            socket.getOutputStream().write(preamble.array());
            InputStream in = socket.getInputStream();
            ByteBuffer answer = ByteBuffer.wrap(readExactly(in, LinkPreamble.LENGTH));
            if (answer.getInt() != LinkPreamble.MAGIC) {
                throw new ProtocolException("hub " + hub + " did not answer the endpoint echo as a Traverse hub");
            }
            int family = in.read();
            if (family < 0) {
                throw new EOFException("hub " + hub + " closed without an endpoint echo (a hub older than the echo?)");
            }
            byte[] rest = readExactly(in, EndpointEcho.length(family) - 1);
            byte[] echo = new byte[rest.length + 1];
            echo[0] = (byte) family;
            System.arraycopy(rest, 0, echo, 1, rest.length);
            return new Result(socket.getLocalPort(), EndpointEcho.decode(echo), connectNanos);
        }
    }

    private static byte[] readExactly(InputStream in, int length) throws IOException {
        byte[] bytes = in.readNBytes(length);
        if (bytes.length != length) {
            throw new EOFException("endpoint echo ended after " + bytes.length + " of " + length + " bytes");
        }
        return bytes;
    }
}
