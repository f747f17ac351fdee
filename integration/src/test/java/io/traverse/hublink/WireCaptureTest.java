package io.traverse.hublink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.traverse.Protection;
import io.traverse.Traverse;
import io.traverse.TraverseServerSocket;
import io.traverse.hub.Hub;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * What an on-path observer of both nodes' links sees of a relayed connection by name (issue 25's
 * capture: 200 echoed lines held the application's bytes in 800 records and the name in 3): every
 * byte of the hub links and data links passes a recording relay, and neither the application's
 * bytes nor the registered name may appear in it. With the defaults the data links are in clear
 * and the connection is encrypted end to end (the name travels on the hub link, in TLS); with
 * {@code traverse.hub.datalink.tls} the data links are in TLS too.
 */
class WireCaptureTest {
    private static final String NAME = "capture-secret-service";
    private static final String MARKER = "application-secret-line";

    private final LoopbackHubNetwork net = new LoopbackHubNetwork();
    private final ExecutorService threads = net.threads();

    @AfterEach
    void closeAll() throws Exception {
        net.close();
    }

    @ParameterizedTest(name = "data links in TLS: {0}, traverse.encrypt={1}")
    @CsvSource({"false, relayed", "true, relayed", "false, none"})
    void aRelayedConnectionByNameShowsNeitherItsBytesNorItsNameOnTheWire(boolean dataLinkTls, String encrypt)
            throws Exception {
        // With neither (traverse.encrypt=none and data links in clear) the bytes must show: the tap sees them.
        boolean bytesHidden = dataLinkTls || encrypt.equals("relayed");
        Hub hub = net.hub("capture-hub");
        RecordingTap tap = net.closeLater(new RecordingTap(LoopbackHubNetwork.address(hub), threads));
        Traverse serverNode = net.node(LoopbackHubNetwork.config()
                .hubs(java.util.List.of(tap.address()))
                .modules("routed")
                .set("traverse.hub.datalink.tls", Boolean.toString(dataLinkTls))
                .set("traverse.encrypt", encrypt)
                .build());
        Traverse client = net.node(LoopbackHubNetwork.config()
                .hubs(java.util.List.of(tap.address()))
                .modules("routed")
                .set("traverse.hub.datalink.tls", Boolean.toString(dataLinkTls))
                .set("traverse.encrypt", encrypt)
                .build());
        assertThat(serverNode.awaitHubLink(Duration.ofSeconds(10))).isTrue();
        assertThat(client.awaitHubLink(Duration.ofSeconds(10))).isTrue();
        TraverseServerSocket listening =
                net.closeLater(serverNode.serverSocketFactory().createServerSocket(NAME, 7000));
        AtomicReference<Protection> acceptedProtection = new AtomicReference<>();
        CompletableFuture<Integer> echoed = CompletableFuture.supplyAsync(
                () -> {
                    try (Socket s = listening.accept();
                            BufferedReader in = new BufferedReader(
                                    new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
                            PrintWriter out = new PrintWriter(s.getOutputStream(), true, StandardCharsets.UTF_8)) {
                        acceptedProtection.set(
                                serverNode.connectionInfo(s).orElseThrow().protection());
                        int lines = 0;
                        for (String line; (line = in.readLine()) != null; lines++) {
                            out.println(line);
                        }
                        return lines;
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                },
                threads);
        await().atMost(Duration.ofSeconds(15))
                .until(() -> client.hubDirectory()
                        .resolveName(NAME)
                        .get(5, TimeUnit.SECONDS)
                        .isPresent());

        try (Socket s = client.socketFactory().createSocket(NAME, 7000);
                BufferedReader in =
                        new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
                PrintWriter out = new PrintWriter(s.getOutputStream(), true, StandardCharsets.UTF_8)) {
            assertThat(client.connectionInfo(s).orElseThrow().module()).isEqualTo("routed");
            Protection expected = encrypt.equals("relayed") ? Protection.SEALED : Protection.NONE;
            assertThat(client.connectionInfo(s).orElseThrow().protection()).isEqualTo(expected);
            for (int i = 0; i < 200; i++) {
                String line = MARKER + " " + i;
                out.println(line);
                assertThat(in.readLine()).isEqualTo(line);
            }
            s.shutdownOutput();
            assertThat(in.readLine()).isNull();
        }
        assertThat(echoed.get(10, TimeUnit.SECONDS)).isEqualTo(200);
        assertThat(acceptedProtection.get())
                .as("the accepting side's view")
                .isEqualTo(encrypt.equals("relayed") ? Protection.SEALED : Protection.NONE);

        byte[] captured = tap.captured();
        // The tap did carry the links: well over 200 echoed lines' worth of bytes, both ways.
        assertThat(captured.length).isGreaterThan(2 * 200 * MARKER.length());
        assertThat(tap.contains(MARKER))
                .as("the application's bytes in clear on the wire")
                .isEqualTo(!bytesHidden);
        assertThat(tap.contains(NAME))
                .as("the registered name in clear on the wire")
                .isFalse();
        // The search itself finds what is there (the preamble's magic leaves in clear by design).
        assertThat(tap.contains("TRVL")).isTrue();
    }
}
