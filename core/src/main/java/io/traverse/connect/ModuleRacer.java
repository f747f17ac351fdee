package io.traverse.connect;

import io.traverse.spi.AttemptFailedException;
import io.traverse.spi.ConnectRequest;
import io.traverse.spi.ConnectionAttempt;
import io.traverse.spi.ConnectionModule;
import io.traverse.spi.FailureScope;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The module chain (paper §3.3.3–3.3.4, raced instead of tried in turn): modules in configured
 * order, the one cached for the target's hub first, run as a {@link StaggeredRace}. A failure of
 * {@link FailureScope#TARGET} ends the chain. The winner is remembered per hub; a cached module
 * that fails is forgotten. The racer knows nothing about NAT; modules know nothing about timing.
 * When a module other than the first configured one wins, the modules before it are probed again
 * in the background ({@link PathUpgradeProbes}), so the cache learns when a better path opens.
 */
public final class ModuleRacer {
    /** A connection and how it was made. */
    public record Outcome(Socket socket, String module, long setupNanos, boolean fromCache) {
    }

    private final List<ConnectionModule> modules;
    private final HubModuleCache cache;
    private final ModuleCounters counters;
    private final long staggerNanos;
    private final Executor executor;
    private final ScheduledExecutorService scheduler;
    private final PathUpgradeProbes probes;

    public ModuleRacer(List<ConnectionModule> modules, HubModuleCache cache, ModuleCounters counters, long staggerNanos,
            Executor executor, ScheduledExecutorService scheduler, PathUpgradeProbes probes) {
        this.probes = probes;
        this.modules = List.copyOf(modules);
        this.cache = cache;
        this.counters = counters;
        this.staggerNanos = staggerNanos;
        this.executor = executor;
        this.scheduler = scheduler;
    }

    public List<String> moduleNames() {
        return modules.stream().map(ConnectionModule::name).toList();
    }

    /** One connection setup, cancellable from another thread while {@link #connect} runs. */
    public final class Race {
        private final ConnectRequest request;
        private volatile StaggeredRace<Outcome> race;
        private volatile boolean cancelled;

        private Race(ConnectRequest request) {
            this.request = request;
        }

        public Outcome connect() throws IOException {
            long start = System.nanoTime();
            String key = HubModuleCache.keyOf(request.target());
            Optional<String> cached = cache.lookup(key);
            List<ConnectionModule> order = new ArrayList<>(modules);
            cached.flatMap(name -> order.stream().filter(m -> m.name().equals(name)).findFirst()).ifPresent(m -> {
                order.remove(m);
                order.add(0, m);
            });
            List<ModuleAttempt> attempts = new ArrayList<>();
            Map<String, String> notTried = new HashMap<>();
            for (ConnectionModule module : order) {
                try {
                    ConnectionAttempt attempt = module.plan(request);
                    boolean first = attempts.isEmpty();
                    attempts.add(new ModuleAttempt(module.name(), attempt, start, first && cached.isPresent()
                            && cached.get().equals(module.name()), key));
                } catch (AttemptFailedException e) {
                    if (e.scope() == FailureScope.TARGET) {
                        throw e;
                    }
                    notTried.put(module.name(), e.getMessage());
                }
            }
            if (attempts.isEmpty()) {
                throw new AttemptFailedException(FailureScope.MODULE, modules.isEmpty()
                        ? "no connection module is available (none of traverse.modules is on the class path)"
                        : "no module can reach " + request.target() + " (" + reasons(attempts, notTried) + ")");
            }
            StaggeredRace<Outcome> r = new StaggeredRace<>(attempts, staggerNanos, request.deadline(), executor, scheduler,
                    failure -> FailureScope.of(failure) == FailureScope.TARGET, outcome -> SocketAttempt.closeQuietly(outcome.socket()));
            race = r;
            if (cancelled) {
                r.cancel();
            }
            Outcome outcome;
            try {
                outcome = r.run();
            } catch (IOException e) {
                throw explained(e, attempts, notTried);
            }
            cache.remember(key, outcome.module());
            probes.consider(key, request, modulesBefore(outcome.module()), outcome.module());
            return outcome;
        }

        /**
         * The race's failure retold with every module's reason in chain order, and why the others
         * were not tried; a definitive answer from the target, a cancel and an interrupt stay as they are.
         */
        private IOException explained(IOException failure, List<ModuleAttempt> attempts, Map<String, String> notTried) {
            boolean timedOut = failure instanceof SocketTimeoutException; // an InterruptedIOException, but no interrupt
            if (cancelled || FailureScope.of(failure) == FailureScope.TARGET || (failure instanceof InterruptedIOException && !timedOut)) {
                return failure;
            }
            String reasons = reasons(attempts, notTried);
            IOException told = timedOut
                    ? new SocketTimeoutException("Connect timed out (" + reasons + ")")
                    : new AttemptFailedException(FailureScope.of(failure), reasons);
            Throwable[] parts = failure.getSuppressed();
            if (parts.length == 0) {
                told.addSuppressed(failure);
            }
            for (Throwable part : parts) {
                told.addSuppressed(part);
            }
            return told;
        }

        /** "direct: …; reverse: …; routed: not tried (…)", in configured order. */
        private String reasons(List<ModuleAttempt> attempts, Map<String, String> notTried) {
            StringBuilder sb = new StringBuilder();
            for (ConnectionModule m : modules) {
                String why;
                if (notTried.containsKey(m.name())) {
                    why = "not tried (" + notTried.get(m.name()) + ")";
                } else {
                    why = attempts.stream().filter(a -> a.module.equals(m.name())).findFirst().map(ModuleAttempt::result)
                            .orElse("not tried");
                    why = why.contains("; ") ? "(" + why + ")" : why; // one module's several addresses, kept together
                }
                if (sb.length() > 0) {
                    sb.append("; ");
                }
                sb.append(m.name()).append(": ").append(why);
            }
            return sb.toString();
        }

        public void cancel() {
            cancelled = true;
            StaggeredRace<Outcome> r = race;
            if (r != null) {
                r.cancel();
            }
        }
    }

    public Race prepare(ConnectRequest request) {
        return new Race(request);
    }

    /** The modules configured before {@code winner}: the ones an upgrade probe tries. */
    private List<ConnectionModule> modulesBefore(String winner) {
        List<ConnectionModule> before = new ArrayList<>();
        for (ConnectionModule m : modules) {
            if (m.name().equals(winner)) {
                return before;
            }
            before.add(m);
        }
        return List.of();
    }

    /** Cancels the background probes; races in progress are the callers' to cancel. */
    public void close() {
        probes.close();
    }

    /** Wraps a module's attempt with statistics and cache upkeep. */
    private final class ModuleAttempt implements StaggeredRace.Attempt<Outcome> {
        private final String module;
        private final ConnectionAttempt attempt;
        private final long raceStart;
        private final boolean fromCache;
        private final String cacheKey;
        private volatile boolean cancelled;
        private volatile boolean started;
        /** Why it failed, once it has; null while it runs or if it won. */
        private volatile String failure;

        ModuleAttempt(String module, ConnectionAttempt attempt, long raceStart, boolean fromCache, String cacheKey) {
            this.module = module;
            this.attempt = attempt;
            this.raceStart = raceStart;
            this.fromCache = fromCache;
            this.cacheKey = cacheKey;
        }

        @Override
        public void prepare() throws IOException {
            started = true;
            counters.attempted(module);
            try {
                attempt.prepare();
            } catch (IOException e) {
                failed(e);
                throw e;
            }
        }

        @Override
        public Outcome run() throws IOException {
            try {
                Socket socket = attempt.connect();
                long setup = System.nanoTime() - raceStart;
                counters.succeeded(module, setup);
                return new Outcome(socket, module, setup, fromCache);
            } catch (IOException e) {
                failed(e);
                throw e;
            }
        }

        private void failed(IOException e) {
            if (!cancelled) { // losing a race is not a failure of the module
                failure = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
                counters.failed(module);
                cache.forget(cacheKey, module);
            }
        }

        @Override
        public String describe() {
            return "module " + module;
        }

        /** What became of it, for the message when nothing won. */
        String result() {
            String why = failure;
            if (why != null) {
                return why;
            }
            if (!started) {
                return "not started before the race ended";
            }
            String doing = attempt.progress();
            return "no answer before the deadline" + (doing == null ? "" : ": " + doing);
        }

        @Override
        public void cancel() {
            cancelled = true;
            attempt.cancel();
        }
    }
}
