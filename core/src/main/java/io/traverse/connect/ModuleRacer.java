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
import java.util.List;
import java.util.concurrent.Executor;

/**
 * The module chain (paper §3.3.3–3.3.4, raced instead of tried in turn): modules in configured
 * order, the one cached for the target's hub first, run as a {@link StaggeredRace}. A failure of
 * {@link FailureScope#TARGET} ends the chain. The winner is remembered per hub; a cached module
 * that fails is forgotten. The racer knows nothing about NAT; modules know nothing about timing.
 * When a module other than the first configured one wins, the modules before it are probed again
 * in the background ({@link PathUpgradeProbes}), so the cache learns when a better path opens.
 *
 * <p>Kernel sockets before relays: a relay's success waits about its own setup time for a kernel
 * socket still under way ({@link StaggeredRace.Preference}); when the relay wins after all, the
 * kernel attempts it beat go on, and the first of them to get through is cached (with its setup
 * time) for the next connection, its socket closed unseen by the target's application. A cached
 * kernel module gets a head start over the rest of the chain of half again its last setup time,
 * so that a relay does not overtake it on a long path.
 */
public final class ModuleRacer {
    /**
     * A connection and how it was made.
     *
     * @param setupNanos   from the start of the connect
     * @param attemptNanos from when the winning module's attempt was under way (its wait for a hub link left out)
     */
    public record Outcome(Socket socket, String module, long setupNanos, boolean fromCache, long attemptNanos) {
        public Outcome(Socket socket, String module, long setupNanos, boolean fromCache) {
            this(socket, module, setupNanos, fromCache, setupNanos);
        }
    }

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(ModuleRacer.class);

    private final List<ConnectionModule> modules;
    private final HubModuleCache cache;
    private final ModuleCounters counters;
    private final long staggerNanos;
    private final Executor executor;
    private final PathUpgradeProbes probes;
    /** Races whose kernel attempts outlived a relay's win, cancelled when the node closes. */
    private final java.util.Set<StaggeredRace<Outcome>> continuing = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /** The head start of a cached kernel module over the rest, at most: RFC 8305's upper bound on its attempt delay. */
    static final long MAX_CACHED_HEAD_START_NANOS = 2_000_000_000L;

    public ModuleRacer(
            List<ConnectionModule> modules,
            HubModuleCache cache,
            ModuleCounters counters,
            long staggerNanos,
            Executor executor,
            PathUpgradeProbes probes) {
        this.probes = probes;
        this.modules = List.copyOf(modules);
        this.cache = cache;
        this.counters = counters;
        this.staggerNanos = staggerNanos;
        this.executor = executor;
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
            if (modules.isEmpty()) {
                throw new AttemptFailedException(
                        FailureScope.MODULE,
                        "no connection module is available (none of traverse.modules is on the class path)");
            }
            long start = System.nanoTime();
            String key = HubModuleCache.keyOf(request.target());
            HubModuleCache.Choice choice = cache.choice(key).orElse(null);
            String cached = choice == null ? null : choice.module();
            // Modules plan when the race launches them: when the first one wins, as it mostly does,
            // the others cost nothing, not even working out that they would not apply.
            List<ModuleAttempt> attempts = new ArrayList<>(modules.size());
            for (ConnectionModule module : modules) {
                ModuleAttempt a =
                        new ModuleAttempt(module, request, start, module.name().equals(cached), key);
                if (a.fromCache) {
                    attempts.add(0, a);
                } else {
                    attempts.add(a);
                }
            }
            StaggeredRace<Outcome> r = new StaggeredRace<>(
                    attempts,
                    staggerNanos,
                    request.deadline(),
                    executor,
                    failure -> FailureScope.of(failure) == FailureScope.TARGET,
                    outcome -> SocketAttempt.closeQuietly(outcome.socket()),
                    request.rivals()::appeared);
            r.prefer(new KernelSocketsFirst(key));
            if (choice != null
                    && choice.setupNanos() > 0
                    && attempts.get(0).fromCache
                    && !attempts.get(0).module.relays()) {
                long headStart = choice.setupNanos() + choice.setupNanos() / 2;
                r.firstStagger(Math.max(staggerNanos, Math.min(MAX_CACHED_HEAD_START_NANOS, headStart)));
            }
            race = r;
            if (cancelled) {
                r.cancel();
            }
            Outcome outcome;
            try {
                outcome = r.run();
            } catch (IOException e) {
                r.cancelContinuing(); // a win cancelled by the caller: nothing may outlive it
                throw explained(e, attempts);
            }
            try {
                r.confirmWinner(); // the target may hold it until now (a rival ran)
            } catch (IOException e) {
                SocketAttempt.closeQuietly(outcome.socket());
                r.cancelContinuing();
                throw new AttemptFailedException(
                        FailureScope.PATH,
                        "module " + outcome.module() + ": connection lost while confirming it: " + e.getMessage());
            }
            if (relays(outcome.module())) {
                cache.rememberUnlessUpgraded(key, cached, outcome.module(), outcome.attemptNanos());
            } else {
                cache.remember(key, outcome.module(), outcome.attemptNanos());
            }
            if (r.hasContinuing()) {
                continuing.add(r); // the kernel attempts still under way are this relay's upgrade probe
                if (!r.hasContinuing()) {
                    continuing.remove(r);
                }
            }
            // Modules before the winner are probed as before, but for those left running: they probe themselves.
            List<ConnectionModule> toProbe = new ArrayList<>();
            for (ConnectionModule m : modulesBefore(outcome.module())) {
                if (attempts.stream().noneMatch(a -> a.module == m && r.continues(a))) {
                    toProbe.add(m);
                }
            }
            probes.consider(key, request, toProbe, outcome.module());
            return outcome;
        }

        /**
         * The race's failure retold with every module's reason in chain order, and why the others
         * were not tried; a definitive answer from the target, a cancel and an interrupt stay as they are.
         */
        private IOException explained(IOException failure, List<ModuleAttempt> attempts) {
            boolean timedOut = failure instanceof SocketTimeoutException; // an InterruptedIOException, but no interrupt
            if (cancelled
                    || FailureScope.of(failure) == FailureScope.TARGET
                    || (failure instanceof InterruptedIOException && !timedOut)) {
                return failure;
            }
            String reasons = reasons(attempts);
            IOException told;
            if (timedOut) {
                told = new SocketTimeoutException("Connect timed out (" + reasons + ")");
            } else if (attempts.stream().allMatch(a -> a.notApplicable != null)) {
                told = new AttemptFailedException(
                        FailureScope.MODULE, "no module can reach " + request.target() + " (" + reasons + ")");
            } else {
                told = new AttemptFailedException(FailureScope.of(failure), reasons);
            }
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
        private String reasons(List<ModuleAttempt> attempts) {
            StringBuilder sb = new StringBuilder();
            for (ConnectionModule m : modules) {
                String why = "not tried";
                for (ModuleAttempt a : attempts) {
                    if (a.module == m) {
                        why = a.result();
                        break;
                    }
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

    /** True if {@code module} names one of this racer's modules that relays. */
    private boolean relays(String module) {
        return modules.stream().anyMatch(m -> m.name().equals(module) && m.relays());
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

    /** Cancels the background probes and kernel attempts that outlived a relay; races in progress are the callers' to cancel. */
    public void close() {
        probes.close();
        continuing.forEach(StaggeredRace::cancelContinuing);
        continuing.clear();
    }

    /**
     * The racer's preference: kernel-socket modules over relays. A kernel attempt that outlives a
     * relay's win and gets through is cached for next time, and its connection closed unconfirmed.
     */
    private final class KernelSocketsFirst implements StaggeredRace.Preference<Outcome> {
        private final String key;

        KernelSocketsFirst(String key) {
            this.key = key;
        }

        @Override
        public boolean preferred(StaggeredRace.Attempt<Outcome> attempt) {
            return !((ModuleAttempt) attempt).module.relays();
        }

        @Override
        public void continued(StaggeredRace.Attempt<Outcome> attempt, Outcome result) {
            ModuleAttempt a = (ModuleAttempt) attempt;
            if (result == null) {
                log.debug(
                        "Connect to {}: module {}, left running after a relay won, did not get through",
                        key,
                        a.module.name());
            } else {
                SocketAttempt.closeQuietly(result.socket()); // unconfirmed: the target drops it unseen
                String before = cache.lookup(key).orElse("nothing");
                boolean beforeIsKernel = !before.equals("nothing") && !relays(before);
                if (!beforeIsKernel) { // the first kernel module through is kept; a later one does not replace it
                    cache.remember(key, result.module(), result.attemptNanos());
                    log.info(
                            "Module {} reaches {} too ({} ms after its launch), after a relay won the connection; new"
                                    + " connections start with it",
                            result.module(),
                            key,
                            result.attemptNanos() / 1_000_000);
                    probes.upgraded(key, before, result.module());
                }
            }
            continuing.removeIf(r -> !r.hasContinuing());
        }
    }

    /** Plans a module's attempt when the race launches it, and wraps it with statistics and cache upkeep. */
    private final class ModuleAttempt implements StaggeredRace.Attempt<Outcome> {
        private final ConnectionModule module;
        private final ConnectRequest request;
        private final long raceStart;
        private final boolean fromCache;
        private final String cacheKey;
        private volatile ConnectionAttempt attempt;
        private volatile boolean cancelled;
        private volatile boolean started;
        private volatile long launchedAt;
        /** Why the module did not plan an attempt (it does not apply here), or null. */
        private volatile String notApplicable;
        /** Why it failed, once it has; null while it runs or if it won. */
        private volatile String failure;

        ModuleAttempt(
                ConnectionModule module, ConnectRequest request, long raceStart, boolean fromCache, String cacheKey) {
            this.module = module;
            this.request = request;
            this.raceStart = raceStart;
            this.fromCache = fromCache;
            this.cacheKey = cacheKey;
        }

        @Override
        public void prepare() throws IOException {
            started = true;
            log.debug("Connect to {}: module {} launched at {} us", request.target(), module.name(), sinceStart());
            ConnectionAttempt planned;
            try {
                planned = module.plan(request);
            } catch (AttemptFailedException e) {
                notApplicable = e.getMessage(); // a TARGET answer ends the race; the others only rule this module out
                log.debug(
                        "Connect to {}: module {} does not apply ({} us): {}",
                        request.target(),
                        module.name(),
                        sinceStart(),
                        e.getMessage());
                throw e;
            }
            attempt = planned;
            if (cancelled) {
                planned.cancel();
                throw new AttemptFailedException(FailureScope.PATH, "cancelled");
            }
            counters.attempted(module.name());
            try {
                planned.prepare();
            } catch (IOException e) {
                failed(e);
                throw e;
            }
            launchedAt = System.nanoTime(); // under way: a wait for the hub link is not the path's setup time
            log.debug("Connect to {}: module {} under way at {} us", request.target(), module.name(), sinceStart());
        }

        private long sinceStart() {
            return (System.nanoTime() - raceStart) / 1000;
        }

        @Override
        public Outcome run() throws IOException {
            try {
                Socket socket = attempt.connect();
                long now = System.nanoTime();
                long setup = now - raceStart;
                counters.succeeded(module.name(), setup);
                log.debug("Connect to {}: module {} connected at {} us", request.target(), module.name(), setup / 1000);
                return new Outcome(socket, module.name(), setup, fromCache, now - launchedAt);
            } catch (IOException e) {
                failed(e);
                throw e;
            }
        }

        private void failed(IOException e) {
            if (!cancelled) { // losing a race is not a failure of the module
                failure = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
                log.debug(
                        "Connect to {}: module {} failed at {} us: {}",
                        request.target(),
                        module.name(),
                        sinceStart(),
                        failure);
                counters.failed(module.name());
                cache.forget(cacheKey, module.name());
            }
        }

        @Override
        public void confirm() throws IOException {
            attempt.confirm();
        }

        /** Never for the cached module: it got through before, and keeps its head start over the rest. */
        @Override
        public boolean longShot() {
            ConnectionAttempt a = attempt;
            return a != null && !fromCache && a.longShot();
        }

        @Override
        public String describe() {
            return "module " + module.name();
        }

        /** What became of it, for the message when nothing won. */
        String result() {
            String why = notApplicable;
            if (why != null) {
                return "not tried (" + why + ")";
            }
            why = failure;
            if (why != null) {
                return why.contains("; ") ? "(" + why + ")" : why; // one module's several addresses, kept together
            }
            if (!started) {
                return "not started before the race ended";
            }
            ConnectionAttempt a = attempt;
            String doing = a == null ? null : a.progress();
            return "no answer before the deadline" + (doing == null ? "" : ": " + doing);
        }

        @Override
        public void cancel() {
            cancelled = true;
            ConnectionAttempt a = attempt;
            if (a != null) {
                a.cancel();
            }
        }
    }
}
