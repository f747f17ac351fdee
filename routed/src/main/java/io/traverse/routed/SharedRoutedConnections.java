package io.traverse.routed;

import io.traverse.spi.ModuleContext;
import io.traverse.spi.RelayLink;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A node's one table of relayed connections, shared by the modules that open them (routed and
 * longpoll): RELAY frames have one receiver per node, so two tables would steal each other's
 * frames. Made by the first module of a node, closed when the last one closes.
 */
final class SharedRoutedConnections {
    private static final Map<RelayLink, SharedRoutedConnections> BY_LINK = new IdentityHashMap<>();

    private final RelayLink link;
    private final RoutedConnections connections;
    private final Set<String> users = ConcurrentHashMap.newKeySet();

    private SharedRoutedConnections(RelayLink link, RoutedConnections connections) {
        this.link = link;
        this.connections = connections;
    }

    static SharedRoutedConnections acquire(ModuleContext context, String module) {
        synchronized (BY_LINK) {
            SharedRoutedConnections shared = BY_LINK.get(context.relayLink());
            if (shared == null) {
                ReceiveBudget budget = new ReceiveBudget(
                        context.config().get(RoutedModuleProvider.RECEIVE_BUDGET), RoutedModule.WINDOW);
                RoutedConnections table = new RoutedConnections(
                        context.relayLink(),
                        context.inboundConnections(),
                        context.events(),
                        budget,
                        context.config().hubKeepalive().toMillis(),
                        context.config().handshakeTimeout().toMillis(),
                        context.peerSessions().orElse(null),
                        context.config().encryptRelayed()
                                && context.peerSessions().isPresent());
                shared = new SharedRoutedConnections(context.relayLink(), table);
                SharedRoutedConnections s = shared;
                // An accepted connection is the longpoll module's while the hub link is a long-poll session and that
                // module is here.
                table.acceptedBy(() ->
                        s.has("longpoll") && context.hubLinkIsLongPoll() ? "longpoll" : RoutedModuleProvider.NAME);
                BY_LINK.put(context.relayLink(), shared);
            }
            shared.users.add(module);
            return shared;
        }
    }

    RoutedConnections connections() {
        return connections;
    }

    /** Whether a module of that name shares the table (is in this node's chain). */
    boolean has(String module) {
        return users.contains(module);
    }

    void release(String module) {
        synchronized (BY_LINK) {
            if (users.remove(module) && users.isEmpty()) {
                BY_LINK.remove(link);
                connections.close();
            }
        }
    }
}
