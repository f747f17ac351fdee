package io.traverse.cli.diagnose;

import static org.assertj.core.api.Assertions.assertThat;

import io.traverse.hub.Hub;
import io.traverse.hub.HubConfig;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code traverse diagnose} names the HTTP proxy it used and what the proxy answered (real tinyproxy on loopback). */
class DiagnoseThroughProxyTest {
    private static final String TOKEN = "diagnose-proxy-token";

    @TempDir
    Path dir;

    private Hub hub;
    private Process tinyproxy;

    @AfterEach
    void stop() throws Exception {
        System.clearProperty("traverse.http.proxy");
        System.clearProperty("traverse.http.nonproxyhosts");
        System.clearProperty("traverse.hub.timeout");
        if (tinyproxy != null) {
            tinyproxy.destroy();
            assertThat(tinyproxy.waitFor(5, TimeUnit.SECONDS)).isTrue();
        }
        if (hub != null) {
            hub.close();
        }
    }

    /** Starts tinyproxy on 127.0.0.1 with a private configuration; returns its host:port. */
    private String startTinyproxy(String extraLine) throws Exception {
        Path binary = Path.of("/usr/bin/tinyproxy");
        if (!Files.isExecutable(binary)) {
            Assumptions.assumeTrue(
                    System.getenv("CI") != null || "root".equals(System.getProperty("user.name")),
                    "Skipped: tinyproxy is not installed (Debian package tinyproxy-bin; CI installs it)");
            throw new AssertionError("tinyproxy is not installed (Debian package tinyproxy-bin)");
        }
        int port;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        Path conf = Files.writeString(
                dir.resolve("tinyproxy.conf"),
                "Port " + port + "\nListen 127.0.0.1\nLogLevel Warning\n" + "LogFile \"" + dir.resolve("tinyproxy.log")
                        + "\"\n" + extraLine + "\n");
        tinyproxy = new ProcessBuilder(binary.toString(), "-d", "-c", conf.toString())
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("out").toFile())
                .start();
        for (int i = 0; i < 250; i++) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
                return "127.0.0.1:" + port;
            } catch (IOException e) {
                Thread.sleep(20);
            }
        }
        throw new AssertionError("tinyproxy did not start: " + Files.readString(dir.resolve("out")));
    }

    private String diagnose(String proxy) throws Exception {
        hub = Hub.start(HubConfig.builder()
                .bindAddress("127.0.0.1")
                .port(0)
                .httpPort(-1)
                .name("diag-proxy-hub")
                .token(TOKEN)
                .build());
        System.setProperty("traverse.http.proxy", proxy);
        System.setProperty("traverse.http.nonproxyhosts", "nothing.invalid");
        StringWriter text = new StringWriter();
        CommandLine cli = new CommandLine(new DiagnoseCommand());
        cli.setOut(new PrintWriter(text));
        cli.execute(
                "nobody-here:80",
                "--hub",
                "127.0.0.1:" + hub.linkAddress().getPort(),
                "--token",
                TOKEN,
                "--timeout",
                "2s");
        return text.toString();
    }

    @Test
    void itNamesTheProxyAndItsYes() throws Exception {
        String proxy = startTinyproxy("");
        String text = diagnose(proxy);
        assertThat(text)
                .contains("hub link ")
                .doesNotContain("hub link none")
                .containsPattern(
                        "http proxy: http://" + proxy + " \\(from system property traverse.http.proxy\\); HTTP proxy "
                                + proxy + " .*answered 'HTTP/1\\.[01] 200 [^']*' to CONNECT 127.0.0.1:"
                                + hub.linkAddress().getPort());
    }

    @Test
    void itNamesTheProxyAndItsNo() throws Exception {
        String proxy = startTinyproxy("ConnectPort 443");
        String text = diagnose(proxy);
        // The refusal is named, and the link falls back on a long-poll session through the same proxy.
        assertThat(text)
                .contains(
                        "refused CONNECT to hub 127.0.0.1:" + hub.linkAddress().getPort())
                .contains("http proxy: http://" + proxy)
                .contains("it answered 'HTTP/1.1 403 Access violation'")
                .contains("by a long-poll session through HTTP proxy " + proxy);
    }
}
