package io.traverse.connect;

import io.traverse.TraverseListener;
import io.traverse.protocol.Deadline;
import io.traverse.spi.ConnectRequest;
import io.traverse.spi.ConnectionAttempt;
import io.traverse.spi.ConnectionModule;
import io.traverse.spi.FailureScope;
import java.io.IOException;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Background probes that keep the per-hub cache honest (paper §3.3.4): when a module late in the
 * configured order (routed, say) won a connection, the modules before it are raced once more
 * against the same target, off the caller's thread. If one of them gets through, its probe
 * connection is closed at once, the cache entry for the target's hub names that module, and the
 * listeners hear {@code pathUpgraded}. The connection the application already has is not moved.
 *
 * <p>Bounded: at most one probe per cache key at a time, at most one every {@link #INTERVAL} per
 * key, at most {@link #MAX_RUNNING} at once (beyond that a probe is skipped, and tried again by a
 * later connection), at most {@link #MAX_KEYS} keys remembered. Probes run on the node's attempt
 * threads and are cancelled (every socket closed) when the node closes. Probe requests are marked
 * as such ({@link ConnectRequest#probe()}): the target answers as it would but hands no connection
 * to its application; modules that cannot probe without one (routed) are left out.
 */
public final class PathUpgradeProbes {
    /** A cache key is probed at most this often. */
    public static final Duration INTERVAL = Duration.ofSeconds(30);

    static final int MAX_KEYS = HubModuleCache.MAX_ENTRIES;
    /** Probes running at once, at most: they share the node's attempt threads with real connects. */
    static final int MAX_RUNNING = 16;

    private static final Logger log = LoggerFactory.getLogger(PathUpgradeProbes.class);

    private final HubModuleCache cache;
    private final TraverseListener events;
    private final long staggerNanos;
    private final Duration timeout;
    private final Executor executor;
    // Guarded by this:
    private final Map<String, Long> lastStarted = new HashMap<>();
    private final Map<String, StaggeredRace<String>> running = new HashMap<>();
    private boolean closed;

    /**
     * @param timeout how long one probe may take
     */
    public PathUpgradeProbes(
            HubModuleCache cache, TraverseListener events, long staggerNanos, Duration timeout, Executor executor) {
        this.cache = cache;
        this.events = events;
        this.staggerNanos = staggerNanos;
        this.timeout = timeout;
        this.executor = executor;
    }

    /**
     * Starts a probe of {@code earlier} (the modules configured before {@code winner}) for the
     * target of {@code request}, unless one runs or ran recently for {@code key}. Returns at once.
     */
    public void consider(String key, ConnectRequest request, List<ConnectionModule> earlier, String winner) {
        if (earlier.isEmpty()) {
            return;
        }
        long now = System.nanoTime();
        synchronized (this) {
            Long last = lastStarted.get(key);
            if (closed
                    || running.containsKey(key)
                    || running.size() >= MAX_RUNNING
                    || last != null && now - last < INTERVAL.toNanos()) {
                return;
            }
            forgetOld(now);
            lastStarted.put(key, now);
            running.put(key, null);
        }
        ConnectRequest probe = new ConnectRequest(
                request.target(), request.virtualPort(), Deadline.after(timeout), request.options(), true);
        try {
            executor.execute(() -> probe(key, probe, earlier, winner));
        } catch (RejectedExecutionException e) {
            synchronized (this) {
                running.remove(key);
            }
            log.debug("No thread for an upgrade probe of {}: {}", key, e.toString());
        }
    }

    /** Drops keys whose interval has passed, when the table is full. Caller holds the lock. */
    private void forgetOld(long now) {
        if (lastStarted.size() < MAX_KEYS) {
            return;
        }
        for (Iterator<Map.Entry<String, Long>> it = lastStarted.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<String, Long> e = it.next();
            if (now - e.getValue() >= INTERVAL.toNanos() && !running.containsKey(e.getKey())) {
                it.remove();
            }
        }
        if (lastStarted.size() >= MAX_KEYS) {
            lastStarted.keySet().stream()
                    .filter(k -> !running.containsKey(k))
                    .findFirst()
                    .ifPresent(lastStarted::remove);
        }
    }

    private void probe(String key, ConnectRequest request, List<ConnectionModule> earlier, String winner) {
        try {
            List<ProbeAttempt> attempts = new ArrayList<>();
            for (ConnectionModule module : earlier) {
                try {
                    attempts.add(new ProbeAttempt(module.name(), module.plan(request)));
                } catch (IOException e) {
                    log.debug("Upgrade probe of {}: module {} cannot try: {}", key, module.name(), e.getMessage());
                }
            }
            if (attempts.isEmpty()) {
                return;
            }
            StaggeredRace<String> race = new StaggeredRace<>(
                    attempts,
                    staggerNanos,
                    request.deadline(),
                    executor,
                    failure -> FailureScope.of(failure) == FailureScope.TARGET,
                    module -> {});
            synchronized (this) {
                if (closed) {
                    return;
                }
                running.put(key, race);
            }
            String better = race.run();
            cache.remember(key, better);
            log.info(
                    "Upgrade probe: module {} now reaches {} (the connection there was made by {}); new connections start with it",
                    better,
                    key,
                    winner);
            events.pathUpgraded(key, winner, better);
        } catch (IOException | RuntimeException e) {
            log.debug("Upgrade probe of {}: no module before {} gets through: {}", key, winner, e.getMessage());
        } finally {
            synchronized (this) {
                running.remove(key);
            }
        }
    }

    /**
     * A kernel attempt that outlived a relay's win got through for {@code key}: tells the listeners,
     * as a probe would, and counts as this key's probe for the interval.
     */
    public void upgraded(String key, String winner, String better) {
        synchronized (this) {
            lastStarted.put(key, System.nanoTime());
        }
        events.pathUpgraded(key, winner, better);
    }

    /** Probes running now (for tests). */
    public synchronized int running() {
        return running.size();
    }

    /** Cancels every running probe (closing their sockets) and starts no more. */
    public void close() {
        List<StaggeredRace<String>> toCancel;
        synchronized (this) {
            closed = true;
            toCancel = running.values().stream().filter(r -> r != null).toList();
        }
        toCancel.forEach(StaggeredRace::cancel);
    }

    /** One module's probe: connects, closes the socket at once, and names the module. */
    private static final class ProbeAttempt implements StaggeredRace.Attempt<String> {
        private final String module;
        private final ConnectionAttempt attempt;

        ProbeAttempt(String module, ConnectionAttempt attempt) {
            this.module = module;
            this.attempt = attempt;
        }

        @Override
        public String run() throws IOException {
            Socket socket = attempt.connect();
            SocketAttempt.closeQuietly(socket);
            return module;
        }

        @Override
        public void cancel() {
            attempt.cancel();
        }

        @Override
        public String describe() {
            return "upgrade probe of module " + module;
        }
    }
}
