package io.traverse.security;

import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.JdkSslContext;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import io.traverse.identity.NodeId;
import java.io.IOException;
import java.math.BigInteger;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import javax.net.ssl.SSLSocket;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * TLS 1.3 for links, both ways authenticated by the two ends' {@link IdentityKey}s instead of by
 * a certificate authority: each end presents a self-signed certificate that only carries its key,
 * TLS proves that the end holds the private key (CertificateVerify), and the link handshake that
 * runs inside then checks that the id each end states is its key's id ({@link #peerId}). Who may
 * join is still decided by the network token, whose proof now travels encrypted.
 *
 * <p>Built once per node or hub: making the certificate costs a signature.
 */
public final class LinkTls {
    static final String PROTOCOL = "TLSv1.3";
    private static final List<String> CIPHERS =
            List.of("TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256");

    private final IdentityKey key;
    private final KeyBoundKeyManager keyManager;
    private final SslContext client;
    /** Made on first use: a node never accepts a link. */
    private volatile SslContext server;

    private LinkTls(IdentityKey key, KeyBoundKeyManager keyManager, SslContext client) {
        this.key = key;
        this.keyManager = keyManager;
        this.client = client;
    }

    /** The TLS contexts of a node or hub with this key. */
    public static LinkTls of(IdentityKey key) {
        KeyBoundKeyManager keyManager = new KeyBoundKeyManager(key.privateKey(), certificate(key));
        try {
            SslContext client = SslContextBuilder.forClient()
                    .sslProvider(SslProvider.JDK)
                    .protocols(PROTOCOL)
                    .ciphers(CIPHERS)
                    .keyManager(keyManager)
                    .trustManager(new KeyBoundTrust())
                    .build();
            return new LinkTls(key, keyManager, client);
        } catch (SSLException e) {
            throw new IllegalStateException("this Java platform cannot run TLS 1.3 with Ed25519 keys", e);
        }
    }

    /**
     * Makes the accepting side's context now rather than at the first accept: a hub accepts links
     * from its start, and its first one must not wait a fresh JVM's time for it.
     */
    public LinkTls accepting() {
        server();
        return this;
    }

    private SslContext server() {
        SslContext made = server;
        if (made == null) {
            synchronized (this) {
                made = server;
                if (made == null) {
                    try {
                        made = SslContextBuilder.forServer(keyManager)
                                .sslProvider(SslProvider.JDK)
                                .protocols(PROTOCOL)
                                .ciphers(CIPHERS)
                                .clientAuth(ClientAuth.REQUIRE)
                                .trustManager(new KeyBoundTrust())
                                .build();
                    } catch (SSLException e) {
                        throw new IllegalStateException("this Java platform cannot run TLS 1.3 with Ed25519 keys", e);
                    }
                    server = made;
                }
            }
        }
        return made;
    }

    /** The key this side proves. */
    public IdentityKey key() {
        return key;
    }

    /**
     * The handler of the dialling end; {@code peer}, when it is an IP address and port, keys the
     * session cache (resumption).
     */
    public SslHandler clientHandler(ByteBufAllocator alloc, SocketAddress peer) {
        return peer instanceof InetSocketAddress inet
                ? client.newHandler(alloc, inet.getHostString(), inet.getPort())
                : client.newHandler(alloc);
    }

    /** The handler of the accepting end. */
    public SslHandler serverHandler(ByteBufAllocator alloc) {
        return server().newHandler(alloc);
    }

    /** A client engine for ends that drive TLS by hand over a non-blocking socket. */
    public SSLEngine clientEngine(InetSocketAddress peer) {
        return client.newEngine(ByteBufAllocator.DEFAULT, peer.getHostString(), peer.getPort());
    }

    /**
     * A blocking TLS client socket over a connected socket (whose preambles are exchanged): for
     * ends that do not run on Netty.
     */
    public SSLSocket clientSocket(Socket plain, InetSocketAddress peer) throws IOException {
        SSLSocket socket = (SSLSocket) ((JdkSslContext) client)
                .context()
                .getSocketFactory()
                .createSocket(plain, peer.getHostString(), peer.getPort(), true);
        socket.setEnabledProtocols(new String[] {PROTOCOL});
        socket.setUseClientMode(true);
        return socket;
    }

    /**
     * A TLS client socket over a connected kernel socket whose identity handshake agreed on TLS
     * ({@code traverse.encrypt=all}), for the application's connecting end. The session cache is
     * keyed by the peer's id, so the next connection to that node resumes without signatures.
     * Call {@link #handshake} before handing it out.
     */
    public SSLSocket connectingSocket(Socket plain, NodeId peer) throws IOException {
        return kernelSocket(client, plain, peer.toString(), 0, true);
    }

    /** The same for the application's accepting end: TLS server, the client's key required. */
    public SSLSocket acceptingSocket(Socket plain) throws IOException {
        SSLSocket socket =
                kernelSocket(server(), plain, plain.getInetAddress().getHostAddress(), plain.getPort(), false);
        socket.setNeedClientAuth(true);
        return socket;
    }

    /** A TLS 1.3 socket over {@code plain} with the links' cipher suites; host and port key the session cache. */
    private static SSLSocket kernelSocket(SslContext context, Socket plain, String host, int port, boolean client)
            throws IOException {
        SSLSocket socket = (SSLSocket)
                ((JdkSslContext) context).context().getSocketFactory().createSocket(plain, host, port, true);
        socket.setEnabledProtocols(new String[] {PROTOCOL});
        socket.setEnabledCipherSuites(CIPHERS.toArray(String[]::new));
        socket.setUseClientMode(client);
        return socket;
    }

    /**
     * Runs the TLS handshake of a kernel socket within {@code timeoutMillis} and checks that the
     * peer proved the key of {@code peer}, the node the identity handshake named: a peer with
     * another key is someone on the path. The socket's read timeout is as before afterwards.
     *
     * @throws SSLPeerUnverifiedException if the peer proved another key, or none
     */
    public static void handshake(SSLSocket socket, NodeId peer, int timeoutMillis) throws IOException {
        int before = socket.getSoTimeout();
        socket.setSoTimeout(Math.max(1, timeoutMillis));
        socket.startHandshake();
        socket.setSoTimeout(before);
        NodeId proved = peerId(socket.getSession());
        if (!proved.equals(peer)) {
            throw new SSLPeerUnverifiedException(
                    "TLS peer proved the key of node " + proved + ", not of node " + peer + " the handshake named");
        }
    }

    /**
     * The id of the key the peer proved in the TLS handshake of a link's pipeline, or null when
     * the pipeline runs no TLS or its handshake is not done.
     */
    public static NodeId peerId(ChannelPipeline pipeline) {
        SslHandler tls = pipeline.get(SslHandler.class);
        if (tls == null || !tls.handshakeFuture().isSuccess()) {
            return null;
        }
        try {
            return peerId(tls.engine().getSession());
        } catch (SSLPeerUnverifiedException e) {
            return null;
        }
    }

    /** The id of the key the peer proved in a TLS session. */
    public static NodeId peerId(SSLSession session) throws SSLPeerUnverifiedException {
        Certificate[] chain = session.getPeerCertificates();
        return IdentityKey.idOf(chain[0].getPublicKey());
    }

    /**
     * A certificate that carries the key and nothing else that matters: self-signed, named after
     * the id, valid from a day ago to the far future (nobody checks its dates: the key is the identity).
     */
    static X509Certificate certificate(IdentityKey key) {
        X500Name name = new X500Name("CN=" + key.id());
        Instant now = Instant.now();
        X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(
                name,
                new BigInteger(64, new SecureRandom()).add(BigInteger.ONE),
                Date.from(now.minus(Duration.ofDays(1))),
                Date.from(now.plus(Duration.ofDays(365L * 100))),
                name,
                key.publicKey());
        try {
            return new JcaX509CertificateConverter()
                    .getCertificate(
                            builder.build(new JcaContentSignerBuilder(IdentityKey.ALGORITHM).build(key.privateKey())));
        } catch (OperatorCreationException | CertificateException e) {
            throw new IllegalStateException("cannot make the certificate of key " + key.id(), e);
        }
    }
}
