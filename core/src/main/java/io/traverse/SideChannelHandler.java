package io.traverse;

import io.traverse.identity.NodeId;
import java.util.concurrent.CompletableFuture;

/**
 * Answers side-channel requests for one service. Runs on the node's handler threads (a small
 * bounded pool, never a network thread, unless it {@linkplain #answersAtOnce answers at once}),
 * so it may block briefly; requests beyond what the pool and its queue hold are answered
 * {@code OVERLOAD}. A handler that throws makes the request fail
 * at the sender with {@code HANDLER_FAILED} and the exception's message.
 */
@FunctionalInterface
public interface SideChannelHandler {
    /**
     * @param sender the node that sent the request (authenticated by its hub)
     * @return the answer, at most {@link SideChannel#MAX_PAYLOAD} bytes
     */
    byte[] answer(NodeId sender, byte[] request) throws Exception;

    /**
     * The answer, possibly later: a handler that waits on the network (a connection attempt, say)
     * returns a future at once instead of holding one of the few handler threads. The default
     * answers on the handler thread with {@link #answer}. A future completed exceptionally fails
     * the request with {@code HANDLER_FAILED}, as a throwing {@code answer} does.
     */
    default CompletableFuture<byte[]> answerLater(NodeId sender, byte[] request) throws Exception {
        return CompletableFuture.completedFuture(answer(sender, request));
    }

    /**
     * True if {@link #answerLater} never blocks and returns quickly (it checks the request and
     * hands any slow work to threads of its own): it then runs on the link's network thread,
     * saving a thread hand-off per request. Only for handlers that keep that promise: one that
     * blocks there stalls every message on the node's hub link, and an {@link Error} it throws
     * there may close the link. Default false.
     */
    default boolean answersAtOnce() {
        return false;
    }
}
