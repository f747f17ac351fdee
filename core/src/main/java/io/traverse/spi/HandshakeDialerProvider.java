package io.traverse.spi;

import io.traverse.config.HttpProxy;
import io.traverse.identity.LocalInterfaces;
import io.traverse.identity.NodeIdentity;
import java.net.InetAddress;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * Found with {@link java.util.ServiceLoader}
 * ({@code META-INF/services/io.traverse.spi.HandshakeDialerProvider}); makes the {@link
 * HandshakeDialer} of one node. The node makes one whichever modules are switched on, since
 * reverse dials back with it while direct may be off. Needs a public no-argument constructor.
 */
public interface HandshakeDialerProvider {
    HandshakeDialer create(Setup setup);

    /**
     * What a dialer needs to know of its node.
     *
     * @param localIdentity the node's identity now (it changes when the node learns its hub or a
     *     mapped port)
     * @param localInterfaces the interfaces this node listens on (all, or those of its bind address)
     * @param hostInterfaces every interface of this host: addresses that reach this host, not a
     *     remote target
     * @param bindAddress the address the node listens on when it listens on one only (null: all)
     * @param staggerNanos how long an address's attempt runs alone before the next one starts
     * @param executor runs the attempts
     * @param httpOnlyWayOut the HTTP proxy that is this node's only way out, or null
     * @param peerSessions the node's keys agreed with peers: CONNECT and REVERSE handshakes prove
     *     keys with them ({@code IdentityHandshake.KEY_PROOF}); null: they prove none (as before)
     * @param kernelTls where a handshake that agreed on TLS records its socket; the dialer asks for
     *     TLS ({@code IdentityHandshake.TLS}) when {@code askTls}
     * @param askTls true with {@code traverse.encrypt=all}
     */
    record Setup(
            Supplier<NodeIdentity> localIdentity,
            LocalInterfaces localInterfaces,
            LocalInterfaces hostInterfaces,
            InetAddress bindAddress,
            long staggerNanos,
            Executor executor,
            HttpProxy httpOnlyWayOut,
            io.traverse.security.PeerSessions peerSessions,
            io.traverse.connect.KernelTls kernelTls,
            boolean askTls) {}
}
