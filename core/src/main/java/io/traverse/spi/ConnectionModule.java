package io.traverse.spi;

import java.io.Closeable;
import java.io.IOException;

/**
 * One way of setting up a connection (paper §3.3.3: direct, reverse, splicing, routed; plus
 * long-poll), created per node by a {@link ConnectionModuleProvider}. A module knows nothing of
 * the others or of timing; the module racer in core owns both.
 */
public interface ConnectionModule extends Closeable {
    String name();

    /**
     * Plans an attempt for this request. Throws {@link AttemptFailedException} with
     * {@link FailureScope#MODULE} when the module cannot even try (no addresses, no hub).
     */
    ConnectionAttempt plan(ConnectRequest request) throws IOException;

    /**
     * True if this module's connections pass through hubs rather than being kernel sockets between
     * the two nodes. The racer prefers the others: a relay wins only when it is clearly sooner, and
     * a kernel socket still under way when it does is left to finish, to be cached for next time.
     */
    default boolean relays() {
        return false;
    }

    @Override
    default void close() {}
}
