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
}
