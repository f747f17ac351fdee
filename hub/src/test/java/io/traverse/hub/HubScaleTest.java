package io.traverse.hub;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.traverse.wire.LookupKind;
import io.traverse.wire.SideMessage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Larger in-process networks: convergence of a random tree, and side-channel round trips across three hubs. */
class HubScaleTest {
    private static final long SEED = Long.getLong("testSeed", 0x7261766572L);
    private final TestHubs hubs = new TestHubs();

    @AfterEach
    void closeHubs() {
        hubs.close();
    }

    @Test
    void aRandomTreeOfThirtyHubsConverges() throws Exception {
        Random r = new Random(SEED);
        List<Hub> all = new ArrayList<>();
        int[] parent = new int[30];
        for (int i = 0; i < parent.length; i++) {
            parent[i] = i == 0 ? -1 : r.nextInt(i);
            all.add(i == 0 ? hubs.dialOnly("tree30-0") : hubs.dialOnly("tree30-" + i, all.get(parent[i])));
        }
        long start = System.nanoTime();
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            for (Hub hub : all) {
                assertThat(hub.status().routes()).as(hub.name()).hasSize(all.size() - 1);
            }
        });
        // Hops agree with the tree: the depth difference through the common ancestor.
        for (int t = 1; t < parent.length; t++) {
            assertThat(all.get(0).status().routes().get(all.get(t).id()).hops()).isEqualTo(depth(parent, t));
        }
        System.err.println("30 hubs converged in "
                + Duration.ofNanos(System.nanoTime() - start).toMillis() + " ms (seed " + SEED + ")");
    }

    @Test
    void sideChannelRoundTripsAcrossThreeHubs() throws Exception {
        Hub a = hubs.dialOnly("rtt-a");
        Hub b = hubs.dialOnly("rtt-b", a);
        Hub c = hubs.dialOnly("rtt-c", b);
        try (TestNodeClient left = TestNodeClient.connect(a, TestHubs.TOKEN, "rtt-left");
                TestNodeClient right = TestNodeClient.connect(c, TestHubs.TOKEN, "rtt-right")) {
            await().atMost(Duration.ofSeconds(10))
                    .untilAsserted(() -> assertThat(
                                    left.lookup(LookupKind.NODE, right.id().toString())
                                            .entries())
                            .isNotEmpty());
            Thread echo = new Thread(
                    () -> {
                        try {
                            while (true) {
                                SideMessage request = right.await(SideMessage.class);
                                right.send(request.reply(request.payload()));
                            }
                        } catch (Exception | AssertionError stop) {
                            // the test is over
                        }
                    },
                    "echo");
            echo.setDaemon(true);
            echo.start();
            long[] micros = new long[2000];
            for (int i = 0; i < micros.length; i++) {
                long t0 = System.nanoTime();
                left.send(SideMessage.request(i, left.id(), right.id(), "echo", new byte[16]));
                SideMessage reply = left.await(SideMessage.class);
                micros[i] = (System.nanoTime() - t0) / 1000;
                assertThat(reply.messageId()).isEqualTo(i);
            }
            Arrays.sort(micros);
            System.err.println("side-channel round trip over 3 hubs: median " + micros[micros.length / 2] + " us, p99 "
                    + micros[micros.length * 99 / 100] + " us");
            assertThat(micros[micros.length / 2])
                    .as("median round trip in microseconds")
                    .isLessThan(5_000);
        }
    }

    private static int depth(int[] parent, int node) {
        int d = 0;
        while (parent[node] >= 0) {
            node = parent[node];
            d++;
        }
        return d;
    }
}
