package io.traverse.connect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.traverse.TraverseListener;
import io.traverse.identity.NodeId;
import io.traverse.identity.NodeIdentity;
import io.traverse.protocol.Deadline;
import io.traverse.spi.AttemptFailedException;
import io.traverse.spi.ConnectOptions;
import io.traverse.spi.ConnectRequest;
import io.traverse.spi.ConnectionAttempt;
import io.traverse.spi.ConnectionModule;
import io.traverse.spi.FailureScope;
import java.io.IOException;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Kernel sockets before relays: a relay that answers a little sooner than a kernel
 * socket under way does not win; one that answers much sooner wins, and the kernel attempt it beat
 * goes on and is cached, its socket closed; a cached kernel module is not overtaken by a relay on a
 * long path. The modules sleep for their "setup"; the chain's stagger is 20 ms.
 */
class KernelSocketsFirstTest {
    private static final long STAGGER_MS = 20;

    private final ExecutorService executor = Executors.newCachedThreadPool();
    private final HubModuleCache cache = new HubModuleCache(TimeUnit.MINUTES.toNanos(5));
    private final NodeIdentity target =
            NodeIdentity.builder().id(NodeId.random()).build();
    private final String key = HubModuleCache.keyOf(target);
    private final List<String> upgrades = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() {
        executor.shutdownNow();
    }

    private ModuleRacer racer(ConnectionModule... modules) {
        return racer(STAGGER_MS, modules);
    }

    private ModuleRacer racer(long staggerMs, ConnectionModule... modules) {
        TraverseListener events = new TraverseListener() {
            @Override
            public void pathUpgraded(String hub, String from, String to) {
                upgrades.add(from + "->" + to);
            }
        };
        PathUpgradeProbes probes = new PathUpgradeProbes(
                cache, events, TimeUnit.MILLISECONDS.toNanos(STAGGER_MS), Duration.ofSeconds(5), executor);
        return new ModuleRacer(
                List.of(modules),
                cache,
                new ModuleCounters(),
                TimeUnit.MILLISECONDS.toNanos(staggerMs),
                executor,
                probes);
    }

    private ModuleRacer.Outcome connect(ModuleRacer racer) throws IOException {
        return racer.prepare(new ConnectRequest(target, 80, Deadline.after(Duration.ofSeconds(5)), ConnectOptions.NONE))
                .connect();
    }

    @Test
    void aRelayThatIsOnlyALittleSoonerGivesWayToAKernelSocketUnderWay() throws Exception {
        Timed direct = Timed.failing("direct", 0);
        Timed reverse = Timed.succeeding("reverse", 70, false);
        Timed routed = Timed.succeeding("routed", 40, true);

        ModuleRacer.Outcome outcome = connect(racer(direct, reverse, routed));

        assertThat(outcome.module()).isEqualTo("reverse");
        assertThat(routed.sockets).hasSize(1);
        await("the relay's connection is dropped")
                .atMost(Duration.ofSeconds(2))
                .until(() -> routed.sockets.get(0).isClosed());
        assertThat(cache.lookup(key)).contains("reverse");
    }

    @Test
    void aRelayThatIsMuchSoonerWinsAndTheKernelAttemptItBeatIsCachedWhenItGetsThrough() throws Exception {
        Timed direct = Timed.failing("direct", 0);
        Timed reverse = Timed.succeeding("reverse", 400, false);
        Timed routed = Timed.succeeding("routed", 30, true);
        ModuleRacer racer = racer(direct, reverse, routed);

        long start = System.nanoTime();
        ModuleRacer.Outcome outcome = connect(racer);
        long tookMs = (System.nanoTime() - start) / 1_000_000;

        assertThat(outcome.module()).isEqualTo("routed");
        assertThat(tookMs)
                .as("the relay waited about its own setup time, not for the kernel socket")
                .isLessThan(300);
        assertThat(cache.lookup(key)).contains("routed");
        await().atMost(Duration.ofSeconds(3)).until(() -> cache.lookup(key).equals(Optional.of("reverse")));
        assertThat(reverse.sockets)
                .hasSize(1)
                .allSatisfy(s -> assertThat(s.isClosed()).as("never handed out").isTrue());
        assertThat(outcome.socket().isClosed())
                .as("the relay's connection is the application's")
                .isFalse();
        assertThat(upgrades).containsExactly("routed->reverse");
        assertThat(cache.choice(key).orElseThrow().setupNanos())
                .isBetween(TimeUnit.MILLISECONDS.toNanos(350), TimeUnit.MILLISECONDS.toNanos(2_000));

        ModuleRacer.Outcome second = connect(racer);
        assertThat(second.module())
                .as("a cached kernel module has a head start of 1.5 times its setup")
                .isEqualTo("reverse");
        assertThat(routed.plans.get())
                .as("the relay was not even launched the second time")
                .isEqualTo(1);
    }

    @Test
    void aHeldRelayWinsAtOnceWhenTheKernelAttemptFails() throws Exception {
        Timed direct = Timed.failing("direct", 0);
        Timed reverse = Timed.failing("reverse", 120);
        Timed routed = Timed.succeeding("routed", 30, true);

        long start = System.nanoTime();
        ModuleRacer.Outcome outcome = connect(racer(direct, reverse, routed));
        long tookMs = (System.nanoTime() - start) / 1_000_000;

        assertThat(outcome.module()).isEqualTo("routed");
        assertThat(tookMs).isGreaterThanOrEqualTo(50); // routed got through at ~50 ms, held for ~30 ms
        assertThat(outcome.socket().isClosed()).isFalse();
    }

    @Test
    void withoutAKernelModuleUnderWayARelayWinsAtOnce() throws Exception {
        Timed direct = Timed.failing("direct", 0);
        Timed routed = Timed.succeeding("routed", 200, true);

        long start = System.nanoTime();
        ModuleRacer.Outcome outcome = connect(racer(direct, routed));
        long tookMs = (System.nanoTime() - start) / 1_000_000;

        assertThat(outcome.module()).isEqualTo("routed");
        assertThat(tookMs).as("not held for its own 200 ms again").isLessThan(380);
    }

    @Test
    void aLongShotLetsTheNextModuleStartAtOnceAndRunsOnBesideIt() throws Exception {
        Timed direct = Timed.succeeding("direct", 3_000, false).longShot();
        Timed reverse = Timed.succeeding("reverse", 30, false);

        long start = System.nanoTime();
        ModuleRacer.Outcome outcome = connect(racer(1_000, direct, reverse));
        long tookMs = (System.nanoTime() - start) / 1_000_000;

        assertThat(outcome.module()).isEqualTo("reverse");
        assertThat(tookMs)
                .as("reverse did not wait the 1 s stagger behind a long shot")
                .isLessThan(700);
    }

    @Test
    void aLongShotThatFailsDoesNotCutTheHeadStartOfTheModuleItLaunched() throws Exception {
        Timed direct = Timed.failing("direct", 10).longShot();
        Timed reverse = Timed.succeeding("reverse", 80, false);
        Timed routed = Timed.succeeding("routed", 5, true);

        ModuleRacer.Outcome outcome = connect(racer(400, direct, reverse, routed));

        assertThat(outcome.module()).isEqualTo("reverse");
        assertThat(routed.plans.get())
                .as("routed waits its stagger behind reverse, as without the long shot")
                .isZero();
    }

    @Test
    void aSlowKernelModuleStartsTheRelayBesideItButOnceCachedKeepsItsHeadStart() throws Exception {
        Timed direct = Timed.failing("direct", 0);
        Timed splice =
                Timed.succeeding("splice", 600, false).longShot(); // several round trips, as splice says of itself
        Timed routed = Timed.succeeding("routed", 20, true);
        ModuleRacer racer = racer(1_000, direct, splice, routed);

        long start = System.nanoTime();
        ModuleRacer.Outcome first = connect(racer);
        long tookMs = (System.nanoTime() - start) / 1_000_000;
        assertThat(first.module())
                .as("the relay started beside splice, not a 1 s stagger later")
                .isEqualTo("routed");
        assertThat(tookMs).isLessThan(400);
        await("splice, left running, is cached")
                .atMost(Duration.ofSeconds(3))
                .until(() -> cache.lookup(key).equals(Optional.of("splice")));

        ModuleRacer.Outcome second = connect(racer);
        assertThat(second.module())
                .as("cached, it is no long shot: it keeps its head start over the relay")
                .isEqualTo("splice");
        assertThat(routed.plans.get())
                .as("the relay was not launched the second time")
                .isEqualTo(1);
    }

    @Test
    void aSlowKernelModuleConfiguredFirstIsProbedAgainWhenTheRelayBesideItWins() throws Exception {
        Timed splice = Timed.succeeding("splice", 600, false).longShot();
        Timed routed = Timed.succeeding("routed", 20, true);
        ModuleRacer racer = racer(1_000, splice, routed); // traverse.modules=splice,routed

        long start = System.nanoTime();
        assertThat(connect(racer).module()).isEqualTo("routed");
        long tookMs = (System.nanoTime() - start) / 1_000_000;
        assertThat(tookMs)
                .as("the caller's thread, which ran splice, did not wait for it")
                .isLessThan(400);
        await("splice, cancelled with the first attempt, is probed again and cached")
                .atMost(Duration.ofSeconds(3))
                .until(() -> cache.lookup(key).equals(Optional.of("splice")));
        assertThat(splice.plans.get()).as("the race's attempt and the probe's").isEqualTo(2);
    }

    /** A module whose attempts take a fixed time, then fail or return a fresh (unconnected) socket. */
    private static final class Timed implements ConnectionModule {
        final String name;
        final long millis;
        final boolean succeeds;
        final boolean relays;
        final List<Socket> sockets = new CopyOnWriteArrayList<>();
        final AtomicInteger plans = new AtomicInteger();
        private boolean longShot;

        private Timed(String name, long millis, boolean succeeds, boolean relays) {
            this.name = name;
            this.millis = millis;
            this.succeeds = succeeds;
            this.relays = relays;
        }

        static Timed succeeding(String name, long millis, boolean relays) {
            return new Timed(name, millis, true, relays);
        }

        static Timed failing(String name, long millis) {
            return new Timed(name, millis, false, false);
        }

        Timed longShot() {
            longShot = true;
            return this;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public boolean relays() {
            return relays;
        }

        @Override
        public ConnectionAttempt plan(ConnectRequest request) {
            plans.incrementAndGet();
            return new ConnectionAttempt() {
                private volatile Thread runner;

                @Override
                public boolean longShot() {
                    return longShot;
                }

                @Override
                public Socket connect() throws IOException {
                    runner = Thread.currentThread();
                    try {
                        Thread.sleep(millis);
                    } catch (InterruptedException e) {
                        throw new AttemptFailedException(FailureScope.PATH, name + ": cancelled");
                    }
                    if (!succeeds) {
                        throw new AttemptFailedException(FailureScope.PATH, name + ": refused");
                    }
                    Socket s = new Socket();
                    sockets.add(s);
                    return s;
                }

                @Override
                public void cancel() {
                    Thread t = runner;
                    if (t != null) {
                        t.interrupt();
                    }
                }
            };
        }
    }
}
