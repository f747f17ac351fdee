package io.traverse.hub.link;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.EventExecutorGroup;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs an action once every loop of a group has finished the tasks it had queued when asked: a
 * write any loop queued before then is queued before anything the action queues after it.
 */
public final class LoopBarrier {
    private LoopBarrier() {}

    /**
     * Queues a no-op on each loop of {@code group}; the last to run it runs {@code action} (on that
     * loop). A loop that is shutting down counts as passed.
     */
    public static void thenRun(EventExecutorGroup group, Runnable action) {
        List<EventExecutor> loops = new ArrayList<>();
        group.forEach(loops::add);
        AtomicInteger left = new AtomicInteger(loops.size());
        Runnable passed = () -> {
            if (left.decrementAndGet() == 0) {
                action.run();
            }
        };
        for (EventExecutor loop : loops) {
            try {
                loop.execute(passed);
            } catch (RejectedExecutionException e) {
                passed.run();
            }
        }
    }
}
