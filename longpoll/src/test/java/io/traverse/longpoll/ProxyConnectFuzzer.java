package io.traverse.longpoll;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.traverse.TraverseConfig;
import io.traverse.spi.HttpTransport;
import io.traverse.spi.HttpTransport.Way;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Coverage-guided fuzzing of the data link's reading of a proxy's answer to CONNECT
 * ({@link ProxyConnect#tunnel}), delivered in reads of 1-64 bytes (the input's first byte says how many): a tunnel whose
 * answer ends in a blank line and leaves every later byte unread, or an {@link IOException} with a
 * message (a refusal, too long an answer, the proxy closing); never an unchecked exception, and
 * never more than {@link ProxyConnect#MAX_ANSWER} bytes of answer read.
 */
class ProxyConnectFuzzer {
    private static final Way WAY = new Way(
            new InetSocketAddress("10.0.0.1", 17000),
            TraverseConfig.builder()
                    .httpProxy("alice:s3cret@10.0.3.1:3128")
                    .build()
                    .httpProxy()
                    .orElseThrow(),
            new InetSocketAddress("10.0.3.1", 3128));

    @FuzzTest(maxDuration = "10m")
    void answer(byte[] input) {
        if (input.length == 0) {
            return;
        }
        int readSize = 1 + (input[0] & 0x3f);
        byte[] answer = Arrays.copyOfRange(input, 1, input.length);
        Proxy proxy = new Proxy(answer, readSize);
        try {
            ProxyConnect.tunnel(proxy, WAY);
            String read = new String(answer, 0, proxy.buffered.readerIndex(), StandardCharsets.ISO_8859_1);
            // the status line, blanks before it aside, is an HTTP one
            assertThat(read.trim()).startsWith("HTTP/");
            assertThat(read).endsWith("\r\n\r\n");
            assertThat(read.indexOf("\r\n\r\n")).isEqualTo(read.length() - 4);
        } catch (IOException e) {
            assertThat(e.getMessage()).isNotBlank();
        } finally {
            proxy.buffered.release();
        }
        assertThat(proxy.delivered).isLessThanOrEqualTo(ProxyConnect.MAX_ANSWER + 1 + readSize);
    }

    /** A proxy whose answer arrives {@code readSize} bytes per read. */
    private static final class Proxy implements HttpTransport.BlockingStream {
        private final byte[] answer;
        private final int readSize;
        final ByteBuf buffered = Unpooled.buffer();
        int delivered;

        Proxy(byte[] answer, int readSize) {
            this.answer = answer;
            this.readSize = readSize;
        }

        @Override
        public void write(ByteBuffer bytes) {
            bytes.position(bytes.limit());
        }

        @Override
        public ByteBuf fill(int bytes) throws IOException {
            while (buffered.readableBytes() < bytes) {
                if (delivered == answer.length) {
                    throw new EOFException("the proxy closed the connection");
                }
                int n = Math.min(answer.length - delivered, readSize);
                buffered.writeBytes(answer, delivered, n);
                delivered += n;
            }
            return buffered;
        }
    }
}
