package io.traverse.cli.pipe;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.security.MessageDigest;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The summary a pipe gives for its per-connection log line counts what really went each way. */
class SocketPipeTest {
    @Test
    void countsTheBytesOfEachDirectionAndSaysHowItEnded() throws Exception {
        try (ServerSocket clientSide = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                ServerSocket serviceSide = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                Socket client = new Socket(InetAddress.getLoopbackAddress(), clientSide.getLocalPort());
                Socket pipeLeft = clientSide.accept();
                Socket pipeRight = new Socket(InetAddress.getLoopbackAddress(), serviceSide.getLocalPort());
                Socket service = serviceSide.accept()) {
            CompletableFuture<SocketPipe.Summary> done = new CompletableFuture<>();
            SocketPipe.start(pipeLeft, pipeRight, "test-pipe", done::complete);
            byte[] request = new byte[300_001];
            byte[] answer = new byte[70_003];
            new Random(7).nextBytes(request);
            new Random(8).nextBytes(answer);
            CompletableFuture<byte[]> served = CompletableFuture.supplyAsync(() -> {
                try {
                    byte[] got = service.getInputStream().readAllBytes(); // until the client's half-close
                    service.getOutputStream().write(answer);
                    service.shutdownOutput();
                    return got;
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            client.getOutputStream().write(request);
            client.shutdownOutput();
            InputStream in = client.getInputStream();
            byte[] back = in.readAllBytes();
            assertThat(MessageDigest.getInstance("SHA-256").digest(served.get(10, TimeUnit.SECONDS)))
                    .isEqualTo(MessageDigest.getInstance("SHA-256").digest(request));
            assertThat(back).isEqualTo(answer);
            SocketPipe.Summary summary = done.get(10, TimeUnit.SECONDS);
            assertThat(summary.leftToRight()).isEqualTo(request.length);
            assertThat(summary.rightToLeft()).isEqualTo(answer.length);
            assertThat(summary.resetBecause()).isNull();
            assertThat(summary.lasted()).isPositive();
        }
    }
}
