package io.traverse.hublink;

import static org.assertj.core.api.Assertions.assertThat;

import io.traverse.Traverse;
import io.traverse.TraverseServerSocket;
import io.traverse.VirtualSocketAddress;
import io.traverse.hub.Hub;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.InputStream;
import java.math.BigInteger;
import java.net.Socket;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.MessageDigest;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An application's own TLS on top of a Traverse socket, as an application that already runs TLS
 * keeps doing: the client layers an {@code SSLSocketFactory} over the socket Traverse gives it
 * ({@code createSocket(socket, host, port, autoClose)}), the server over the one it accepted, each
 * with its own certificate and trust (a self-signed server certificate the client trusts). Over a
 * direct connection and over a relayed one (sealed end to end underneath), 1 MiB goes up and its
 * length and SHA-256 come back through TLS, then TLS closes cleanly.
 */
class ApplicationTlsOverTraverseTest {
    private static final int PORT = 8443;
    private static final int BYTES = 1 << 20;

    private final LoopbackHubNetwork net = new LoopbackHubNetwork();

    @AfterEach
    void closeAll() throws Exception {
        net.close();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"direct", "routed"})
    void anSslSocketLayeredOverATraverseSocketCarriesVerifiedBytes(String module) throws Exception {
        Hub hub = net.hub("app-tls-hub");
        Traverse server =
                net.node(LoopbackHubNetwork.config(hub).modules(module).build());
        Traverse client =
                net.node(LoopbackHubNetwork.config(hub).modules(module).build());
        assertThat(server.awaitHubLink(Duration.ofSeconds(10))).isTrue();
        assertThat(client.awaitHubLink(Duration.ofSeconds(10))).isTrue();
        SSLContext[] contexts = serverAndClientContexts();
        TraverseServerSocket listening =
                net.closeLater(server.serverSocketFactory().createServerSocket(PORT));
        CompletableFuture<Long> served = CompletableFuture.supplyAsync(
                () -> {
                    try (Socket plain = listening.accept();
                            SSLSocket tls = (SSLSocket)
                                    contexts[0].getSocketFactory().createSocket(plain, null, plain.getPort(), true)) {
                        tls.setUseClientMode(false);
                        DataInputStream in = new DataInputStream(tls.getInputStream());
                        long length = in.readLong();
                        MessageDigest digest = MessageDigest.getInstance("SHA-256");
                        byte[] buffer = new byte[16384];
                        for (long left = length; left > 0; ) {
                            int n = in.read(buffer, 0, (int) Math.min(buffer.length, left));
                            if (n < 0) {
                                throw new IllegalStateException("end of stream with " + left + " bytes to come");
                            }
                            digest.update(buffer, 0, n);
                            left -= n;
                        }
                        DataOutputStream out = new DataOutputStream(tls.getOutputStream());
                        out.writeLong(length);
                        out.write(digest.digest());
                        out.flush();
                        return length;
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                },
                net.threads());

        byte[] data = new byte[BYTES];
        new SplittableRandom(0x7157L).nextBytes(data);
        VirtualSocketAddress target = (VirtualSocketAddress) listening.getLocalSocketAddress();
        try (Socket plain = client.socketFactory().createSocket(target.getHostString(), target.getPort());
                SSLSocket tls =
                        (SSLSocket) contexts[1].getSocketFactory().createSocket(plain, "traverse-app", PORT, true)) {
            assertThat(client.connectionInfo(plain).orElseThrow().module()).isEqualTo(module);
            tls.startHandshake();
            assertThat(tls.getSession().getProtocol()).isEqualTo("TLSv1.3");
            DataOutputStream out = new DataOutputStream(tls.getOutputStream());
            out.writeLong(data.length);
            out.write(data);
            out.flush();
            DataInputStream in = new DataInputStream(tls.getInputStream());
            assertThat(in.readLong()).isEqualTo(data.length);
            byte[] digest = new byte[32];
            in.readFully(digest);
            assertThat(digest).isEqualTo(MessageDigest.getInstance("SHA-256").digest(data));
            InputStream rest = tls.getInputStream();
            assertThat(rest.read())
                    .as("the server's close_notify: end of stream")
                    .isEqualTo(-1);
        }
        assertThat(served.get(20, TimeUnit.SECONDS)).isEqualTo(data.length);
    }

    /** A server context with a fresh self-signed certificate, and a client context that trusts just it. */
    private static SSLContext[] serverAndClientContexts() throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(256);
        KeyPair pair = generator.generateKeyPair();
        X500Name name = new X500Name("CN=traverse-app");
        Instant now = Instant.now();
        X509Certificate certificate = new JcaX509CertificateConverter()
                .getCertificate(new JcaX509v3CertificateBuilder(
                                name,
                                BigInteger.valueOf(now.toEpochMilli()),
                                Date.from(now.minus(Duration.ofDays(1))),
                                Date.from(now.plus(Duration.ofDays(1))),
                                name,
                                pair.getPublic())
                        .build(new JcaContentSignerBuilder("SHA256withECDSA").build(pair.getPrivate())));
        char[] password = "test".toCharArray();
        KeyStore keys = KeyStore.getInstance("PKCS12");
        keys.load(null, null);
        keys.setKeyEntry("server", pair.getPrivate(), password, new java.security.cert.Certificate[] {certificate});
        KeyManagerFactory keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keyManagers.init(keys, password);
        SSLContext serverContext = SSLContext.getInstance("TLSv1.3");
        serverContext.init(keyManagers.getKeyManagers(), null, null);

        KeyStore trusted = KeyStore.getInstance("PKCS12");
        trusted.load(null, null);
        trusted.setCertificateEntry("server", certificate);
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(trusted);
        SSLContext clientContext = SSLContext.getInstance("TLSv1.3");
        clientContext.init(null, trust.getTrustManagers(), null);
        return new SSLContext[] {serverContext, clientContext};
    }
}
