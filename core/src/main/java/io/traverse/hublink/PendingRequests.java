package io.traverse.hublink;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Requests sent over the hub link and waiting for their answer, by request id: bounded (a full
 * table refuses new requests instead of growing), and every entry has a deadline after which it
 * fails with the exception its sender chose. Ids are taken from a counter masked to
 * {@code idMask} (u32 request ids, u64 side-message ids); ids still in use are skipped.
 *
 * @param <T> what an answer is
 */
final class PendingRequests<T> {
    private final int capacity;
    private final long idMask;
    private final AtomicLong nextId = new AtomicLong(1);
    private final Map<Long, CompletableFuture<T>> pending = new ConcurrentHashMap<>();

    PendingRequests(int capacity, long idMask) {
        this.capacity = capacity;
        this.idMask = idMask;
    }

    /** A registered request: its id and the future that its answer, failure or deadline completes. */
    record Pending<T>(long id, CompletableFuture<T> answer) {}

    /**
     * Registers a request.
     *
     * @param onTimeout the failure after {@code timeoutNanos}
     * @return null if the table is full
     */
    Pending<T> register(long timeoutNanos, ScheduledExecutorService timer, Supplier<? extends Throwable> onTimeout) {
        if (pending.size() >= capacity) {
            return null;
        }
        CompletableFuture<T> future = new CompletableFuture<>();
        long id;
        do {
            id = nextId.getAndIncrement() & idMask;
        } while (id == 0 || pending.putIfAbsent(id, future) != null);
        long registered = id;
        ScheduledFuture<?> deadline = timer.schedule(
                () -> {
                    if (pending.remove(registered, future)) {
                        future.completeExceptionally(onTimeout.get());
                    }
                },
                timeoutNanos,
                TimeUnit.NANOSECONDS);
        // Whoever completes the future (answer, failure, caller's cancel) frees the slot and the timer.
        future.whenComplete((v, e) -> {
            pending.remove(registered, future);
            deadline.cancel(false);
        });
        return new Pending<>(id, future);
    }

    /** Completes the request with its answer; false if it is unknown (late, timed out, never sent). */
    boolean complete(long id, T answer) {
        CompletableFuture<T> f = pending.remove(id);
        return f != null && f.complete(answer);
    }

    boolean fail(long id, Throwable failure) {
        CompletableFuture<T> f = pending.remove(id);
        return f != null && f.completeExceptionally(failure);
    }

    /** Fails every pending request (the link is gone). */
    void failAll(Supplier<? extends Throwable> failure) {
        for (Long id : pending.keySet()) {
            fail(id, failure.get());
        }
    }

    int size() {
        return pending.size();
    }
}
