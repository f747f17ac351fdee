package io.traverse.spi;

import io.traverse.HubDirectory;
import io.traverse.HubLinkStatus;
import io.traverse.SideChannel;
import io.traverse.TraverseConfig;
import io.traverse.identity.LocalInterfaces;
import io.traverse.identity.NodeIdentity;

/** What a node offers the modules it creates. */
public interface ModuleContext {
    TraverseConfig config();

    /** This node's full identity. */
    NodeIdentity localIdentity();

    LocalInterfaces localInterfaces();

    /** Staggered TCP connects with the identity handshake, for every module that ends in a kernel socket. */
    HandshakeDialer handshakeDialer();

    /** Control messages to other nodes through the hubs (reverse, splice and routed are built on it). */
    SideChannel sideChannel();

    /** Lookups at the hub network. */
    HubDirectory hubDirectory();

    /** Where connections that modules bring in arrive: virtual ports' backlogs and the dial-back rendezvous. */
    InboundConnections inboundConnections();

    /** RELAY frames over the node's hub link (the routed module). */
    RelayLink relayLink();

    /** The node's hub link now: its hub and the address the hub saw it come from (splice needs that echo). */
    HubLinkStatus hubLinkStatus();

    /**
     * Completes when the hub link is up: at once while it is, later while it is being set up
     * (node start, failover); fails as soon as the node has no hub to wait for (none configured,
     * discovery found none) or closes. Each call returns a future of its own, so cancelling it
     * (a lost race) stops no other wait. Modules that ask through the hubs wait on it within
     * their deadline ({@link HubLinkWait}) instead of giving up while the link is coming up.
     */
    java.util.concurrent.CompletableFuture<Void> hubLinkUp();

    /**
     * How the hub link reaches its hub while it is a long-poll session, e.g. "long-poll
     * session through HTTP proxy 10.0.3.1:3128 (…) with hub 198.18.0.1:17000"; empty for a TCP link.
     */
    default java.util.Optional<String> hubLinkLongPoll() {
        return java.util.Optional.empty();
    }

    /**
     * The HTTP proxy that is this node's only way out (it is set and carries the hub
     * link), or empty. Nothing outside this host's networks can dial such a node, nor can it dial
     * out: modules that need either leave its requests to the relayed ones at once.
     */
    default java.util.Optional<io.traverse.config.HttpProxy> httpOnlyWayOut() {
        return java.util.Optional.empty();
    }

    /**
     * Whether relayed connections of this node travel over a long-poll session: the hub link is one
     * now, or always will be ({@code traverse.http.tunnel=longpoll}, also while it is coming up).
     */
    default boolean hubLinkIsLongPoll() {
        return hubLinkLongPoll().isPresent() || config().longPoll().always();
    }

    /**
     * The node's end-to-end key agreements with its peers, kept per peer (docs/security.md); empty
     * for a context without a node key, whose modules then encrypt nothing.
     */
    default java.util.Optional<io.traverse.security.PeerSessions> peerSessions() {
        return java.util.Optional.empty();
    }

    /**
     * Where a module records a kernel socket whose identity handshake agreed on TLS
     * ({@code traverse.encrypt=all} on either node): the node wraps it before the application sees
     * it. Empty for a context without TLS, whose modules then ask for none.
     */
    default java.util.Optional<io.traverse.connect.KernelTls> kernelTls() {
        return java.util.Optional.empty();
    }

    /** Events for the node's listeners (peer unreachable). */
    ModuleEvents events();

    /** The node's TCP listening port: the port of every one of its interface addresses. */
    int listeningPort();

    /**
     * Adds {@code external} (a NAT's public address:port that forwards to {@link #listeningPort()})
     * to this node's identity and re-announces the identity to the hub, until the returned handle
     * is withdrawn. Never blocks on the network.
     */
    AdvertisedExternal advertiseExternal(java.net.InetSocketAddress external);
}
