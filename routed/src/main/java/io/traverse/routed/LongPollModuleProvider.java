package io.traverse.routed;

import io.traverse.HubLinkStatus;
import io.traverse.spi.ConnectionModule;
import io.traverse.spi.ConnectionModuleProvider;
import io.traverse.spi.ModuleContext;

/**
 * Makes the longpoll module known to {@link java.util.ServiceLoader} under the name {@value #NAME}:
 * relayed connections over the node's long-poll session, planned only while the hub link is one.
 */
public final class LongPollModuleProvider implements ConnectionModuleProvider {
    public static final String NAME = "longpoll";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public ConnectionModule create(ModuleContext context) {
        return RoutedModuleProvider.sharing(NAME, context, request -> {
            if (context.hubLinkIsLongPoll()) {
                return null;
            }
            HubLinkStatus link = context.hubLinkStatus();
            return "the hub link is not a long-poll session ("
                    + (link.isConnected() ? "a TCP link to " + link.hubAddress() : link) + ")";
        });
    }
}
