package io.traverse.hublink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.traverse.Traverse;
import io.traverse.TraverseServerSocket;
import io.traverse.hub.Hub;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A server bound under a name on one hub, a client on another hub connecting by that name — as
 * {@code createSocket(name, port)} and as an unresolved {@code InetSocketAddress} (what JDBC
 * drivers pass). 1 MiB each way, checked by SHA-256, with half-close in between.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ConnectByNameTest {
    private static final int MIB = 1 << 20;
    private final LoopbackHubNetwork net = new LoopbackHubNetwork();
    private Traverse client;
    private TraverseServerSocket server;
    private CompletableFuture<byte[]> serverSentDigest;

    @BeforeEach
    void startNetwork() throws Exception {
        Hub a = net.hub("hub-a");
        Hub b = net.hub("hub-b", a);
        Traverse serverNode = net.node(a);
        client = net.node(b);
        server = net.closeLater(serverNode.serverSocketFactory().createServerSocket("checksum-server", 7000));
        serverSentDigest = CompletableFuture.supplyAsync(this::serveOne);
        assertThat(client.awaitHubLink(Duration.ofSeconds(10))).isTrue();
        await().atMost(Duration.ofSeconds(15))
                .until(() -> client.hubDirectory()
                        .resolveName("checksum-server")
                        .get(5, TimeUnit.SECONDS)
                        .isPresent());
    }

    @AfterEach
    void closeAll() throws Exception {
        net.close();
    }

    @Test
    void createSocketWithTheName() throws Exception {
        try (Socket s = client.socketFactory().createSocket("checksum-server", 7000)) {
            exchange(s);
        }
    }

    @Test
    void unresolvedInetSocketAddressWithTheName() throws Exception {
        try (Socket s = client.socketFactory().createSocket()) {
            s.connect(InetSocketAddress.createUnresolved("Checksum-Server", 7000), 10_000);
            exchange(s);
        }
    }

    @Test
    void aNameWithNothingOnThatPortIsRefusedLikeAHost() {
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> client.socketFactory().createSocket("checksum-server", 7001))
                .isInstanceOf(java.net.ConnectException.class)
                .hasMessageContaining("7001");
    }

    /** Sends 1 MiB, half-closes, reads the server's digest of it and then 1 MiB from the server until EOF. */
    private void exchange(Socket s) throws Exception {
        s.setSoTimeout(30_000);
        byte[] data = new byte[MIB];
        new Random(42).nextBytes(data);
        OutputStream out = s.getOutputStream();
        for (int off = 0; off < data.length; off += 8192) {
            out.write(data, off, 8192);
        }
        s.shutdownOutput();
        DataInputStream in = new DataInputStream(s.getInputStream());
        byte[] digestOfWhatServerGot = new byte[32];
        in.readFully(digestOfWhatServerGot);
        assertThat(digestOfWhatServerGot)
                .isEqualTo(MessageDigest.getInstance("SHA-256").digest(data));
        MessageDigest received = MessageDigest.getInstance("SHA-256");
        long total = 0;
        byte[] buf = new byte[8192];
        for (int n; (n = in.read(buf)) >= 0; ) {
            received.update(buf, 0, n);
            total += n;
        }
        assertThat(total).isEqualTo(MIB);
        assertThat(received.digest()).isEqualTo(serverSentDigest.get(30, TimeUnit.SECONDS));
    }

    /** Reads to EOF, answers the SHA-256 of what came, then 1 MiB of its own and closes; returns that MiB's SHA-256. */
    private byte[] serveOne() {
        try (Socket s = server.accept()) {
            s.setSoTimeout(30_000);
            InputStream in = s.getInputStream();
            MessageDigest got = MessageDigest.getInstance("SHA-256");
            byte[] buf = new byte[8192];
            for (int n; (n = in.read(buf)) >= 0; ) {
                got.update(buf, 0, n);
            }
            OutputStream out = s.getOutputStream();
            out.write(got.digest());
            byte[] data = new byte[MIB];
            new Random(7).nextBytes(data);
            out.write(data);
            out.flush();
            return MessageDigest.getInstance("SHA-256").digest(data);
        } catch (IOException | java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("server side failed", e);
        }
    }
}
