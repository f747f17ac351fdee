package io.traverse.cli.pipe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import io.traverse.hub.Hub;
import io.traverse.hub.HubConfig;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code traverse expose} and {@code traverse forward} carrying real TCP services through a hub. */
class ExposeForwardTest {
    private static final String TOKEN = "pipe-test-token";
    private final List<AutoCloseable> open = new ArrayList<>();
    private Hub hub;

    @BeforeEach
    void startHub() throws Exception {
        hub = Hub.start(HubConfig.builder()
                .bindAddress("127.0.0.1")
                .port(0)
                .httpPort(-1)
                .name("pipe-hub")
                .token(TOKEN)
                .build());
        open.add(hub);
    }

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    private String[] nodeArgs(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--hub", "127.0.0.1:" + hub.linkAddress().getPort(), "--token", TOKEN));
        return all.toArray(String[]::new);
    }

    private RunningPipe<io.traverse.TraverseServerSocket> expose(int localPort, String name, int virtualPort)
            throws Exception {
        ExposeCommand command = new ExposeCommand();
        new CommandLine(command)
                .parseArgs(nodeArgs(String.valueOf(localPort), "--name", name, "--port", String.valueOf(virtualPort)));
        RunningPipe<io.traverse.TraverseServerSocket> exposure = command.start();
        open.add(exposure);
        return exposure;
    }

    private RunningPipe<ServerSocket> forward(String destination) throws Exception {
        ForwardCommand command = new ForwardCommand();
        new CommandLine(command).parseArgs(nodeArgs("0", destination));
        RunningPipe<ServerSocket> forward = command.start();
        open.add(forward);
        return forward;
    }

    @Test
    void aWebServerIsReachedThroughForwardAndExposeWithBodiesIntactBothWays() throws Exception {
        byte[] page = random(1, 1024 * 1024);
        HttpServer web = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        web.createContext("/page", exchange -> {
            exchange.sendResponseHeaders(200, page.length);
            exchange.getResponseBody().write(page);
            exchange.close();
        });
        web.createContext("/digest", exchange -> {
            byte[] body = exchange.getRequestBody().readAllBytes();
            byte[] answer = (HexFormat.of().formatHex(sha256(body)) + " " + body.length).getBytes();
            exchange.sendResponseHeaders(200, answer.length);
            exchange.getResponseBody().write(answer);
            exchange.close();
        });
        web.start();
        open.add(() -> web.stop(0));
        expose(web.getAddress().getPort(), "web-svc", 8080);
        RunningPipe<ServerSocket> forward = forward("web-svc:8080");

        HttpClient client =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        String base = "http://127.0.0.1:" + forward.listener().getLocalPort();
        HttpResponse<byte[]> got = client.send(
                HttpRequest.newBuilder(URI.create(base + "/page"))
                        .timeout(Duration.ofSeconds(30))
                        .build(),
                HttpResponse.BodyHandlers.ofByteArray());
        assertThat(got.statusCode()).isEqualTo(200);
        assertThat(got.body().length).isEqualTo(page.length);
        assertThat(sha256(got.body())).isEqualTo(sha256(page));

        byte[] upload = random(2, 3 * 1024 * 1024);
        HttpResponse<String> posted = client.send(
                HttpRequest.newBuilder(URI.create(base + "/digest"))
                        .timeout(Duration.ofSeconds(30))
                        .POST(HttpRequest.BodyPublishers.ofByteArray(upload))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(posted.body()).isEqualTo(HexFormat.of().formatHex(sha256(upload)) + " " + upload.length);
    }

    @Test
    void halfCloseTravelsThroughBothPipesAndTheServerMayAnswerAfterIt() throws Exception {
        // The service reads to EOF, then answers with the digest and length of what it read.
        ServerSocket service = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress());
        open.add(service);
        Thread server = new Thread(() -> {
            try (Socket s = service.accept()) {
                byte[] all = s.getInputStream().readAllBytes();
                s.getOutputStream().write(sha256(all));
                s.getOutputStream()
                        .write(java.nio.ByteBuffer.allocate(8)
                                .putLong(all.length)
                                .array());
            } catch (Exception e) {
                // the test fails on the client side
            }
        });
        server.setDaemon(true);
        server.start();
        RunningPipe<io.traverse.TraverseServerSocket> exposure = expose(service.getLocalPort(), "digest-svc", 7000);
        RunningPipe<ServerSocket> forward = forward("digest-svc:7000");
        byte[] data = random(3, 2 * 1024 * 1024 + 17);
        try (Socket s = new Socket("127.0.0.1", forward.listener().getLocalPort())) {
            s.setSoTimeout(30_000);
            s.getOutputStream().write(data);
            s.shutdownOutput();
            InputStream in = s.getInputStream();
            assertThat(in.readNBytes(32)).isEqualTo(sha256(data));
            assertThat(java.nio.ByteBuffer.wrap(in.readNBytes(8)).getLong()).isEqualTo(data.length);
            assertThat(in.read()).as("EOF after the answer").isEqualTo(-1);
        }
        await().atMost(Duration.ofSeconds(10))
                .until(() -> exposure.openConnections() == 0 && forward.openConnections() == 0);
    }

    @Test
    void aResetByTheServiceReachesTheClient() throws Exception {
        ServerSocket service = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress());
        open.add(service);
        Thread server = new Thread(() -> {
            try {
                Socket s = service.accept();
                s.getInputStream().read();
                s.setSoLinger(true, 0);
                s.close();
            } catch (IOException e) {
                // the test fails on the client side
            }
        });
        server.setDaemon(true);
        server.start();
        expose(service.getLocalPort(), "reset-svc", 7001);
        RunningPipe<ServerSocket> forward = forward("reset-svc:7001");
        try (Socket s = new Socket("127.0.0.1", forward.listener().getLocalPort())) {
            s.setSoTimeout(30_000);
            s.getOutputStream().write(1);
            assertThatThrownBy(() -> s.getInputStream().read())
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("reset");
        }
    }

    @Test
    void closingAForwardResetsTheConnectionsItStillPipes() throws Exception {
        ServerSocket service = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress());
        open.add(service);
        Thread server = new Thread(() -> {
            try (Socket s = service.accept()) {
                s.getInputStream().read(); // and then nothing: the connection stays open
                s.getInputStream().read();
            } catch (IOException e) {
                // reset, as the test wants
            }
        });
        server.setDaemon(true);
        server.start();
        expose(service.getLocalPort(), "idle-svc", 7002);
        RunningPipe<ServerSocket> forward = forward("idle-svc:7002");
        try (Socket s = new Socket("127.0.0.1", forward.listener().getLocalPort())) {
            s.setSoTimeout(30_000);
            s.getOutputStream().write(1);
            await().atMost(Duration.ofSeconds(10)).until(() -> forward.openConnections() == 1);
            forward.close();
            assertThatThrownBy(() -> s.getInputStream().read())
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("reset");
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> forward.openConnections() == 0);
    }

    @Test
    void aDestinationThatCannotBeReachedResetsTheLocalConnection() throws Exception {
        RunningPipe<ServerSocket> forward = forward("no-such-name:80");
        try (Socket s = new Socket("127.0.0.1", forward.listener().getLocalPort())) {
            s.setSoTimeout(30_000);
            assertThatThrownBy(() -> s.getInputStream().read())
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("reset");
        }
    }

    private static byte[] random(long seed, int length) {
        byte[] bytes = new byte[length];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }

    private static byte[] sha256(byte[] data) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(data);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
