package io.traverse.bench;

import io.traverse.Traverse;
import io.traverse.TraverseConfig;
import io.traverse.hub.Hub;
import io.traverse.hub.HubConfig;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * How long a fresh node takes to link to a hub on loopback, until {@code awaitHubLink} returns:
 * TCP, preambles, TLS, the token's handshake, the data link and its switch. The first figure is
 * the JVM's first link (cold); then {@code runs} nodes after 20 for warm-up, one after another.
 *
 * <pre>java -cp bench/target/benchmarks.jar io.traverse.bench.LinkSetup [runs]</pre>
 */
public final class LinkSetup {
    private static final int WARM_UP = 20;

    private LinkSetup() {}

    public static void main(String[] args) throws Exception {
        int runs = args.length > 0 ? Integer.parseInt(args[0]) : 100;
        try (Hub hub = Hub.start(HubConfig.builder()
                .bindAddress("127.0.0.1")
                .port(0)
                .httpPort(-1)
                .discoveryPort(-1)
                .token("bench-link-setup")
                .build())) {
            InetSocketAddress at =
                    new InetSocketAddress("127.0.0.1", hub.linkAddress().getPort());
            double[] millis = new double[runs];
            double first = -1;
            for (int i = -WARM_UP; i < runs; i++) {
                long start = System.nanoTime();
                try (Traverse node = Traverse.start(TraverseConfig.builder()
                        .bind("127.0.0.1")
                        .token("bench-link-setup")
                        .discovery(false)
                        .hubs(List.of(at))
                        .build())) {
                    if (!node.awaitHubLink(Duration.ofSeconds(10))) {
                        throw new IllegalStateException("no link within 10 s");
                    }
                    double took = (System.nanoTime() - start) / 1e6;
                    if (first < 0) {
                        first = took;
                    }
                    if (i >= 0) {
                        millis[i] = took;
                    }
                }
            }
            Arrays.sort(millis);
            System.out.printf(
                    Locale.ROOT,
                    "node start to linked: first (cold JVM) %.1f ms; then %d runs: median %.2f ms, p90 %.2f ms,"
                            + " min %.2f ms%n",
                    first,
                    runs,
                    millis[runs / 2],
                    millis[runs * 9 / 10],
                    millis[0]);
        }
    }
}
