package io.traverse.node;

import io.traverse.HubDirectory;
import io.traverse.HubLinkStatus;
import io.traverse.SideChannel;
import io.traverse.TraverseConfig;
import io.traverse.config.HttpProxy;
import io.traverse.hublink.HubLink;
import io.traverse.identity.LocalInterfaces;
import io.traverse.identity.NodeIdentity;
import io.traverse.listen.NodeListener;
import io.traverse.security.PeerSessions;
import io.traverse.spi.AdvertisedExternal;
import io.traverse.spi.HandshakeDialer;
import io.traverse.spi.InboundConnections;
import io.traverse.spi.ModuleContext;
import io.traverse.spi.ModuleEvents;
import io.traverse.spi.RelayLink;
import java.net.InetSocketAddress;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A running node as the modules it creates see it: its parts, each read at the moment a module
 * asks (the identity changes when the hub link or an advertised external address does).
 */
final class NodeModuleContext implements ModuleContext {
    private final TraverseConfig config;
    private final Supplier<NodeIdentity> identity;
    private final LocalInterfaces interfaces;
    private final HandshakeDialer handshakeDialer;
    private final HubLink hubLink;
    private final InboundConnections inbound;
    private final ModuleEvents events;
    private final NodeListener listener;
    private final Function<InetSocketAddress, AdvertisedExternal> advertise;
    private final Optional<HttpProxy> httpOnlyWayOut;
    private final PeerSessions peerSessions;
    private final io.traverse.connect.KernelTls kernelTls;

    NodeModuleContext(
            TraverseConfig config,
            Supplier<NodeIdentity> identity,
            LocalInterfaces interfaces,
            HandshakeDialer handshakeDialer,
            HubLink hubLink,
            InboundConnections inbound,
            ModuleEvents events,
            NodeListener listener,
            Function<InetSocketAddress, AdvertisedExternal> advertise,
            Optional<HttpProxy> httpOnlyWayOut,
            PeerSessions peerSessions,
            io.traverse.connect.KernelTls kernelTls) {
        this.kernelTls = kernelTls;
        this.config = config;
        this.identity = identity;
        this.interfaces = interfaces;
        this.handshakeDialer = handshakeDialer;
        this.hubLink = hubLink;
        this.inbound = inbound;
        this.events = events;
        this.listener = listener;
        this.advertise = advertise;
        this.httpOnlyWayOut = httpOnlyWayOut;
        this.peerSessions = peerSessions;
    }

    @Override
    public Optional<io.traverse.connect.KernelTls> kernelTls() {
        return Optional.of(kernelTls);
    }

    @Override
    public Optional<PeerSessions> peerSessions() {
        return Optional.of(peerSessions);
    }

    @Override
    public TraverseConfig config() {
        return config;
    }

    @Override
    public NodeIdentity localIdentity() {
        return identity.get();
    }

    @Override
    public LocalInterfaces localInterfaces() {
        return interfaces;
    }

    @Override
    public HandshakeDialer handshakeDialer() {
        return handshakeDialer;
    }

    @Override
    public SideChannel sideChannel() {
        return hubLink.sideChannel();
    }

    @Override
    public HubDirectory hubDirectory() {
        return hubLink.directory();
    }

    @Override
    public HubLinkStatus hubLinkStatus() {
        return hubLink.status();
    }

    @Override
    public CompletableFuture<Void> hubLinkUp() {
        return hubLink.whenUp();
    }

    @Override
    public Optional<HttpProxy> httpOnlyWayOut() {
        return httpOnlyWayOut;
    }

    @Override
    public Optional<String> hubLinkLongPoll() {
        return hubLink.longPollRoute();
    }

    @Override
    public InboundConnections inboundConnections() {
        return inbound;
    }

    @Override
    public RelayLink relayLink() {
        return hubLink.relayLink();
    }

    @Override
    public ModuleEvents events() {
        return events;
    }

    @Override
    public int listeningPort() {
        return listener.port();
    }

    @Override
    public AdvertisedExternal advertiseExternal(InetSocketAddress external) {
        return advertise.apply(external);
    }
}
