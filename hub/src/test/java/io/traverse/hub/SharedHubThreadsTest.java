package io.traverse.hub;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Hubs on shared threads behave as hubs on their own: they link, route, and one closing leaves the others running. */
class SharedHubThreadsTest {
    private static final Duration CONVERGE = Duration.ofSeconds(10);

    @Test
    void hubsOnSharedThreadsRouteAndOutliveOneThatCloses() throws Exception {
        List<Hub> hubs = new ArrayList<>();
        try (SharedHubThreads threads = new SharedHubThreads(1, 2, 64)) {
            try {
                // A line a - b - c, of three hubs on two state threads: two of them share one.
                for (int i = 0; i < 3; i++) {
                    HubConfig.Builder config = TestHubs.fast(
                                    HubConfig.builder().name("shared-" + i).port(0))
                            .advertisedAddresses(List.of());
                    if (i > 0) {
                        config.peer("127.0.0.1:" + hubs.get(i - 1).linkAddress().getPort());
                    }
                    hubs.add(Hub.start(config.build(), threads));
                }
                Hub a = hubs.get(0);
                Hub c = hubs.get(2);
                await().atMost(CONVERGE).untilAsserted(() -> {
                    assertThat(a.routing().routes().get(c.id())).isNotNull();
                    assertThat(a.routing().routes().get(c.id()).hops()).isEqualTo(2);
                });
                c.close();
                // c's routes are withdrawn at once (its links end), and the hubs left still answer on the shared
                // threads.
                await().atMost(CONVERGE)
                        .untilAsserted(() -> assertThat(a.routing().routes()).doesNotContainKey(c.id()));
                assertThat(hubs.get(1).routing().linkedHubs()).containsExactly(a.id());
            } finally {
                hubs.forEach(Hub::close);
            }
        }
    }
}
