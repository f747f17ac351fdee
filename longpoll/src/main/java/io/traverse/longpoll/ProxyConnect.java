package io.traverse.longpoll;

import io.netty.buffer.ByteBuf;
import io.traverse.config.HttpProxy;
import io.traverse.spi.HttpTransport;
import io.traverse.spi.HttpTransport.ConnectRefusedException;
import io.traverse.spi.HttpTransport.Way;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * A CONNECT exchange with an HTTP proxy on a plain socket (the data link's, which is no Netty
 * channel): the request, with basic authentication when a user is set, and the answer read up to its
 * blank line. The hub link's channel asks with Netty's handler instead ({@link ProxyTunnel}); both
 * say a refusal in the same words ({@link #refusal}).
 */
final class ProxyConnect {
    /** Longest CONNECT answer (status line and headers) read. */
    static final int MAX_ANSWER = 8 * 1024;

    private ProxyConnect() {}

    static void tunnel(HttpTransport.BlockingStream stream, Way way) throws IOException {
        String proxy = "HTTP proxy " + way.proxy().authority();
        stream.write(ByteBuffer.wrap(request(way)));
        ByteBuf buffered = null;
        int end;
        while (true) {
            try {
                buffered = stream.fill(buffered == null ? 1 : buffered.readableBytes() + 1);
            } catch (IOException e) {
                throw new IOException(proxy + " did not open a tunnel to hub " + way.hub() + ": " + e.getMessage(), e);
            }
            end = headerEnd(buffered);
            if (end >= 0) {
                break;
            }
            if (buffered.readableBytes() > MAX_ANSWER) {
                throw new IOException(proxy + " answered CONNECT with more than " + MAX_ANSWER + " bytes of headers");
            }
        }
        String answer =
                buffered.toString(buffered.readerIndex(), end - buffered.readerIndex(), StandardCharsets.ISO_8859_1);
        buffered.readerIndex(end + 4);
        String statusLine = answer.lines().findFirst().orElse("").trim();
        String[] parts = statusLine.split(" ", 3);
        if (parts.length < 2 || !parts[0].startsWith("HTTP/") || !parts[1].startsWith("2")) {
            throw refusal(way, statusLine);
        }
    }

    /** The CONNECT request for the way's hub. */
    static byte[] request(Way way) {
        String target = HttpProxy.authorityOf(way.hub());
        StringBuilder request = new StringBuilder()
                .append("CONNECT ")
                .append(target)
                .append(" HTTP/1.1\r\n")
                .append("Host: ")
                .append(target)
                .append("\r\n");
        way.proxy()
                .basicAuthorization()
                .ifPresent(
                        a -> request.append("Proxy-Authorization: ").append(a).append("\r\n"));
        return request.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1);
    }

    /** Says that the proxy would not tunnel to the hub, naming both and the proxy's answer. */
    static ConnectRefusedException refusal(Way way, String statusLine) {
        boolean credentials = statusLine.contains(" 407 ") || statusLine.contains(" 401 ");
        return new ConnectRefusedException(
                "HTTP proxy " + way.proxy().authority() + " (" + way.proxy().origin() + ") refused CONNECT to hub "
                        + HttpProxy.authorityOf(way.hub()) + ": it answered '" + statusLine + "'"
                        + (credentials ? " (it wants a valid user and password: set them in traverse.http.proxy)" : ""),
                credentials);
    }

    /** The absolute index of the first CR LF CR LF in {@code b}'s readable bytes, or -1. */
    private static int headerEnd(ByteBuf b) {
        for (int i = b.readerIndex(); i + 3 < b.writerIndex(); i++) {
            if (b.getByte(i) == '\r'
                    && b.getByte(i + 1) == '\n'
                    && b.getByte(i + 2) == '\r'
                    && b.getByte(i + 3) == '\n') {
                return i;
            }
        }
        return -1;
    }
}
