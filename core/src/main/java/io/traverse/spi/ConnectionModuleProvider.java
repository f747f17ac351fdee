package io.traverse.spi;

import java.io.IOException;

/**
 * Found with {@link java.util.ServiceLoader} ({@code META-INF/services/io.traverse.spi.ConnectionModuleProvider});
 * makes the module instance of one node. Needs a public no-argument constructor.
 */
public interface ConnectionModuleProvider {
    /** The name used in {@code traverse.modules}, e.g. {@code direct}. */
    String name();

    ConnectionModule create(ModuleContext context) throws IOException;

    /**
     * The configuration keys this module reads ({@link io.traverse.config.ModuleKey}): the node's
     * configuration reads and checks them with core's own, and the module gets their values with
     * {@link io.traverse.TraverseConfig#get(io.traverse.config.ModuleKey)}.
     */
    default java.util.List<io.traverse.config.ModuleKey<?>> keys() {
        return java.util.List.of();
    }
}
