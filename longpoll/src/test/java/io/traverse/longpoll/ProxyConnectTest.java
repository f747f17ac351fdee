package io.traverse.longpoll;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.traverse.TraverseConfig;
import io.traverse.config.HttpProxy;
import io.traverse.spi.HttpTransport;
import io.traverse.spi.HttpTransport.ConnectRefusedException;
import io.traverse.spi.HttpTransport.Way;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The data link's CONNECT exchange, against scripted proxy answers delivered in random pieces. */
class ProxyConnectTest {
    private static final InetSocketAddress HUB = new InetSocketAddress("10.0.0.1", 17000);

    @Test
    void theRequestNamesTheHubAndCarriesBasicAuthenticationWhenAUserIsSet() {
        assertThat(new String(ProxyConnect.request(way("10.0.3.1:3128")), StandardCharsets.ISO_8859_1))
                .isEqualTo("CONNECT 10.0.0.1:17000 HTTP/1.1\r\nHost: 10.0.0.1:17000\r\n\r\n");
        assertThat(new String(ProxyConnect.request(way("alice:s3cret@10.0.3.1:3128")), StandardCharsets.ISO_8859_1))
                .isEqualTo("CONNECT 10.0.0.1:17000 HTTP/1.1\r\nHost: 10.0.0.1:17000\r\n"
                        + "Proxy-Authorization: Basic YWxpY2U6czNjcmV0\r\n\r\n");
    }

    @Test
    void anOpenTunnelLeavesTheBytesAfterTheAnswerForTheHandshake() throws IOException {
        for (long seed = 1; seed <= 20; seed++) {
            Scripted proxy = new Scripted(
                    "HTTP/1.1 200 Connection established\r\nProxy-Agent: tinyproxy\r\n\r\nHUB-FIRST", new Random(seed));

            ProxyConnect.tunnel(proxy, way("10.0.3.1:3128"));

            assertThat(proxy.written()).startsWith("CONNECT 10.0.0.1:17000 HTTP/1.1\r\n");
            // Nothing after the blank line was consumed: the hub's first bytes are all still there.
            ByteBuf rest = proxy.fill("HUB-FIRST".length());
            assertThat(rest.toString(StandardCharsets.ISO_8859_1))
                    .as("seed %d", seed)
                    .isEqualTo("HUB-FIRST");
        }
    }

    @Test
    void aRefusalNamesTheProxyTheHubAndTheStatusLineAndSaysWhetherItWantsCredentials() {
        assertThatThrownBy(() -> ProxyConnect.tunnel(
                        new Scripted("HTTP/1.1 403 Forbidden\r\n\r\n", new Random(7)), way("10.0.3.1:3128")))
                .isInstanceOfSatisfying(
                        ConnectRefusedException.class,
                        e -> assertThat(e.wantsCredentials()).isFalse())
                .hasMessage("HTTP proxy 10.0.3.1:3128 (code) refused CONNECT to hub 10.0.0.1:17000:"
                        + " it answered 'HTTP/1.1 403 Forbidden'");
        assertThatThrownBy(() -> ProxyConnect.tunnel(
                        new Scripted("HTTP/1.1 407 Proxy Authentication Required\r\n\r\n", new Random(7)),
                        way("10.0.3.1:3128")))
                .isInstanceOfSatisfying(
                        ConnectRefusedException.class,
                        e -> assertThat(e.wantsCredentials()).isTrue())
                .hasMessageContaining("it wants a valid user and password: set them in traverse.http.proxy");
        assertThatThrownBy(
                        () -> ProxyConnect.tunnel(new Scripted("SSH-2.0-OpenSSH\r\n\r\n", new Random(7)), way("p:1")))
                .isInstanceOf(ConnectRefusedException.class)
                .hasMessageContaining("it answered 'SSH-2.0-OpenSSH'");
    }

    @Test
    void anEndlessAnswerOrAClosedProxyFailsWithoutATunnel() {
        assertThatThrownBy(() -> ProxyConnect.tunnel(
                        new Scripted("HTTP/1.1 200 OK\r\nX: " + "a".repeat(10_000), new Random(3)),
                        way("10.0.3.1:3128")))
                .hasMessage("HTTP proxy 10.0.3.1:3128 answered CONNECT with more than 8192 bytes of headers");
        assertThatThrownBy(() -> ProxyConnect.tunnel(new Scripted("HTTP/1.1 200", new Random(3)), way("10.0.3.1:3128")))
                .hasMessageStartingWith("HTTP proxy 10.0.3.1:3128 did not open a tunnel to hub")
                .hasCauseInstanceOf(EOFException.class);
    }

    private static Way way(String proxy) {
        HttpProxy settings =
                TraverseConfig.builder().httpProxy(proxy).build().httpProxy().orElseThrow();
        return new Way(HUB, settings, new InetSocketAddress("10.0.3.1", 3128));
    }

    /** A proxy that answers with {@code answer}, arriving a random number of bytes per read. */
    private static final class Scripted implements HttpTransport.BlockingStream {
        private final byte[] answer;
        private final Random random;
        private final StringBuilder written = new StringBuilder();
        private int delivered;
        final ByteBuf buffered = Unpooled.buffer();

        Scripted(String answer, Random random) {
            this.answer = answer.getBytes(StandardCharsets.ISO_8859_1);
            this.random = random;
        }

        @Override
        public void write(ByteBuffer bytes) {
            byte[] b = new byte[bytes.remaining()];
            bytes.get(b);
            written.append(new String(b, StandardCharsets.ISO_8859_1));
        }

        @Override
        public ByteBuf fill(int bytes) throws IOException {
            while (buffered.readableBytes() < bytes) {
                if (delivered == answer.length) {
                    throw new EOFException("the proxy closed the connection");
                }
                int n = Math.min(answer.length - delivered, 1 + random.nextInt(40));
                buffered.writeBytes(answer, delivered, n);
                delivered += n;
            }
            return buffered;
        }

        String written() {
            return written.toString();
        }
    }
}
