package io.traverse.connect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.traverse.TraverseListener;
import io.traverse.identity.NodeId;
import io.traverse.identity.NodeIdentity;
import io.traverse.protocol.Deadline;
import io.traverse.spi.ConnectOptions;
import io.traverse.spi.ConnectRequest;
import io.traverse.spi.ConnectionAttempt;
import io.traverse.spi.ConnectionModule;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class PathUpgradeProbesTest {
    private final ExecutorService executor = Executors.newCachedThreadPool();
    private final HubModuleCache cache = new HubModuleCache(TimeUnit.MINUTES.toNanos(5));
    private final List<String> upgrades = new CopyOnWriteArrayList<>();
    private final TraverseListener events = new TraverseListener() {
        @Override
        public void pathUpgraded(String cacheKey, String previousModule, String newModule) {
            upgrades.add(cacheKey + ": " + previousModule + " -> " + newModule);
        }
    };
    private final PathUpgradeProbes probes =
            new PathUpgradeProbes(cache, events, TimeUnit.MILLISECONDS.toNanos(100), Duration.ofSeconds(5), executor);
    private final ConnectRequest request = new ConnectRequest(
            NodeIdentity.builder().id(NodeId.random()).build(),
            80,
            Deadline.after(Duration.ofSeconds(5)),
            ConnectOptions.NONE);

    @AfterEach
    void stop() {
        probes.close();
        executor.shutdownNow();
    }

    @Test
    void aProbeThatConnectsClosesItsSocketRewritesTheCacheAndTellsTheListeners() {
        cache.remember("hub a", "routed");
        FakeModule direct = new FakeModule("direct", false);
        probes.consider("hub a", request, List.of(direct), "routed");
        await().atMost(Duration.ofSeconds(5)).until(() -> upgrades.size() == 1);
        assertThat(upgrades).containsExactly("hub a: routed -> direct");
        assertThat(cache.lookup("hub a")).contains("direct");
        assertThat(direct.sockets).allMatch(Socket::isClosed).hasSize(1);
        await().atMost(Duration.ofSeconds(5)).until(() -> probes.running() == 0);
    }

    @Test
    void aKeyIsProbedOnceAnIntervalWhateverTheOutcome() {
        FakeModule direct = new FakeModule("direct", true);
        probes.consider("hub b", request, List.of(direct), "routed");
        await().atMost(Duration.ofSeconds(5)).until(() -> probes.running() == 0 && direct.plans.get() == 1);
        probes.consider("hub b", request, List.of(direct), "routed");
        probes.consider("hub c", request, List.of(direct), "routed");
        await().atMost(Duration.ofSeconds(5)).until(() -> probes.running() == 0 && direct.plans.get() == 2);
        assertThat(upgrades).isEmpty();
        assertThat(cache.lookup("hub b")).isEmpty();
    }

    @Test
    void closingCancelsARunningProbeAndLeavesNoSocket() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        FakeModule hanging = new FakeModule("direct", false) {
            @Override
            Socket connect(Attempt attempt) throws IOException {
                started.countDown();
                return super.connect(attempt);
            }
        };
        hanging.hang = true;
        probes.consider("hub d", request, List.of(hanging), "routed");
        assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
        probes.close();
        await().atMost(Duration.ofSeconds(5)).until(() -> probes.running() == 0);
        assertThat(hanging.cancelled.get()).isEqualTo(1);
        assertThat(upgrades).isEmpty();
        probes.consider("hub e", request, List.of(hanging), "routed");
        Thread.sleep(100);
        assertThat(hanging.plans.get()).as("a closed prober starts nothing").isEqualTo(1);
    }

    /** A module whose attempts connect at once (an unconnected socket stands for the connection), fail, or hang until cancelled. */
    private static class FakeModule implements ConnectionModule {
        final String name;
        final boolean fails;
        volatile boolean hang;
        final AtomicInteger plans = new AtomicInteger();
        final AtomicInteger cancelled = new AtomicInteger();
        final List<Socket> sockets = new CopyOnWriteArrayList<>();

        FakeModule(String name, boolean fails) {
            this.name = name;
            this.fails = fails;
        }

        @Override
        public String name() {
            return name;
        }

        final class Attempt implements ConnectionAttempt {
            final CountDownLatch cancel = new CountDownLatch(1);

            @Override
            public Socket connect() throws IOException {
                return FakeModule.this.connect(this);
            }

            @Override
            public void cancel() {
                cancelled.incrementAndGet();
                cancel.countDown();
            }
        }

        Socket connect(Attempt attempt) throws IOException {
            if (hang) {
                try {
                    attempt.cancel.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                throw new SocketException("cancelled");
            }
            if (fails) {
                throw new IOException("unreachable");
            }
            Socket s = new Socket();
            sockets.add(s);
            return s;
        }

        @Override
        public ConnectionAttempt plan(ConnectRequest request) {
            plans.incrementAndGet();
            return new Attempt();
        }
    }
}
