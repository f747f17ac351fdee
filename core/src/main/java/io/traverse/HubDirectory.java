package io.traverse;

import io.traverse.identity.NodeId;
import io.traverse.identity.NodeIdentity;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * What the hub network knows, asked through this node's hub (LOOKUP): names, nodes,
 * hubs and links. Every answer comes from the hub the node is linked to, which knows the whole
 * network through gossip. Futures fail with a {@link SideChannelException} ({@code NO_HUB},
 * {@code LINK_LOST}, {@code OVERLOAD}) or a {@link java.net.SocketTimeoutException} when the hub
 * cannot be asked in time ({@code traverse.hub.timeout}), and complete off the network threads.
 * A listing too long for one answer is cut short (the hub says so; the entries given are valid).
 */
public interface HubDirectory {
    /** The virtual address a name is registered for; empty if no live node holds it. */
    CompletableFuture<Optional<VirtualSocketAddress>> resolveName(String name);

    /** The hub a node is linked to; empty if no hub knows the node. */
    CompletableFuture<Optional<NodeLocation>> locateNode(NodeId node);

    /** Every hub of the network, nearest first. */
    CompletableFuture<List<Hub>> hubs();

    /** Every hub-to-hub link listed by both its ends. */
    CompletableFuture<List<Link>> links();

    /** Every node of the network. */
    CompletableFuture<List<Node>> nodes();

    /** Every registered name. */
    CompletableFuture<List<Name>> names();

    /** Where a node is linked. */
    record NodeLocation(NodeId hub, List<InetSocketAddress> hubAddresses) {}

    /**
     * A hub: its id, name, distance in hub hops from this node's hub (0: that hub itself) and the
     * addresses it can be dialled at (none for a hub that can only dial out).
     */
    record Hub(NodeId id, String name, int hops, List<InetSocketAddress> linkAddresses) {}

    /** A live hub-to-hub link. */
    record Link(NodeId hub, NodeId otherHub) {}

    /** A node and the hub it is linked to. */
    record Node(NodeId id, NodeId hub, NodeIdentity identity) {}

    /** A registered name: the node holding it, the virtual port it was bound with, and the node's hub. */
    record Name(String name, NodeId node, int virtualPort, NodeId hub) {}
}
