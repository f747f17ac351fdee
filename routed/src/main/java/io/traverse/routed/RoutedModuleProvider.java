package io.traverse.routed;

import io.traverse.config.ConfigValues;
import io.traverse.config.ModuleKey;
import io.traverse.spi.ConnectRequest;
import io.traverse.spi.ConnectionModule;
import io.traverse.spi.ConnectionModuleProvider;
import io.traverse.spi.ModuleContext;

/** Makes the routed module known to {@link java.util.ServiceLoader} under the name {@value #NAME}. */
public final class RoutedModuleProvider implements ConnectionModuleProvider {
    public static final String NAME = "routed";

    /**
     * The most bytes the senders of all relayed connections may have on their way to this node
     * beyond what its application read, shared by the routed and longpoll modules' one table.
     */
    public static final ModuleKey<Integer> RECEIVE_BUDGET = ModuleKey.of(
            "traverse.routed.receive.budget",
            "64m",
            "a size from 64k to 2047m such as 64m: the most bytes the senders of all of a node's relayed connections may have on their way to it"
                    + " beyond what its application read, shared among the connections (each still gets 64 KiB, at most 1 MiB)",
            v -> ConfigValues.atLeast(ConfigValues.size(v), 64 * 1024, "64k"));

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public ConnectionModule create(ModuleContext context) {
        return new RoutedModule(context);
    }

    @Override
    public java.util.List<ModuleKey<?>> keys() {
        return java.util.List.of(RECEIVE_BUDGET);
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
