package io.traverse.routed;

import io.traverse.spi.ConnectRequest;
import io.traverse.spi.ConnectionModule;
import io.traverse.spi.ConnectionModuleProvider;
import io.traverse.spi.ModuleContext;

/** Makes the routed module known to {@link java.util.ServiceLoader} under the name {@value #NAME}. */
public final class RoutedModuleProvider implements ConnectionModuleProvider {
    public static final String NAME = "routed";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public ConnectionModule create(ModuleContext context) {
        return new RoutedModule(context);
    }

    /**
     * A module named {@code name} whose attempts are relayed connections on the node's one table
     * of them (credit windows, half-close, probes), shared with the routed module: RELAY frames have
     * one receiver per node. The longpoll module is this, planned only while the hub link is a
     * long-poll session; the routed module then leaves such requests to it.
     *
     * @param notTried why the module leaves a request to others, or null to plan an attempt
     */
    public static ConnectionModule sharing(
            String name, ModuleContext context, java.util.function.Function<ConnectRequest, String> notTried) {
        return new RoutedModule(context, name, java.util.Objects.requireNonNull(notTried));
    }
}
