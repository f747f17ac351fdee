package io.traverse;

import io.traverse.identity.NodeId;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * Small control messages to any node of the hub network by node id, carried by the hubs (paper
 * §3.3.2: the side channel). A request names a <em>service</em> that the target has
 * {@linkplain #register registered}; the target's handler answers, and the answer or an error
 * comes back the same way. The reverse, splice and routed modules are built on it; applications
 * may use it too.
 *
 * <p>Every failure completes the future with a {@link SideChannelException} whose
 * {@link SideChannelException#failure() failure} says what went wrong (no hub, unknown node, no
 * route, no such service, timeout, …). Futures never complete on the caller's thread before
 * {@code request} returns unless the request is refused at once (bad arguments, no hub, too many
 * pending), and never on a network thread: dependent stages may block.
 */
public interface SideChannel {
    /** Largest payload of a request or answer, in bytes. */
    int MAX_PAYLOAD = 16 * 1024;
    /** Longest service name, in bytes. */
    int MAX_SERVICE = 64;

    /**
     * Sends {@code payload} to {@code service} on node {@code target}.
     *
     * @param timeout how long to wait for the answer, end to end
     * @throws IllegalArgumentException for a service name or payload out of bounds, or a non-positive timeout
     */
    CompletableFuture<byte[]> request(NodeId target, String service, byte[] payload, Duration timeout);

    /** Same with the node's {@code traverse.hub.timeout}. */
    CompletableFuture<byte[]> request(NodeId target, String service, byte[] payload);

    /**
     * Serves requests for {@code service} with {@code handler} until the registration is closed
     * or the node closes. Registrations survive a change of hub.
     *
     * @throws IllegalStateException if the service already has a handler on this node
     * @throws IllegalArgumentException if the service name is not 1-64 characters of letters, digits, '-', '_', '.' or '/'
     */
    Registration register(String service, SideChannelHandler handler);

    /** A registered handler; {@link #close()} removes it (requests then fail with {@code NO_SERVICE}). */
    interface Registration extends AutoCloseable {
        String service();

        @Override
        void close();
    }
}
