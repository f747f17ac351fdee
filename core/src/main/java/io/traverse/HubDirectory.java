package io.traverse;

import io.traverse.identity.NodeId;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * What the hub network knows, asked through this node's hub (LOOKUP, issue 3): names, nodes,
 * hubs and links. Every answer comes from the hub the node is linked to, which knows the whole
 * network through gossip. Futures fail with a {@link SideChannelException} ({@code NO_HUB},
 * {@code TIMEOUT}, {@code LINK_LOST}) when the hub cannot be asked, and complete off the network
 * threads.
 *
 * <p>Listings are text entries, one per item, in the formats of docs/protocol.md ("LOOKUP").
 */
public interface HubDirectory {
    /** The virtual address a name is registered for; empty if no live node holds it. */
    CompletableFuture<Optional<VirtualSocketAddress>> resolveName(String name);

    /** Where a node is linked: its hub's id and link addresses; empty if no hub knows the node. */
    CompletableFuture<Optional<List<String>>> locateNode(NodeId node);

    /** Every hub of the network. */
    CompletableFuture<List<String>> hubs();

    /** Every hub-to-hub link (listed by both its ends). */
    CompletableFuture<List<String>> links();

    /** Every node of the network. */
    CompletableFuture<List<String>> nodes();

    /** Every registered name. */
    CompletableFuture<List<String>> names();
}
