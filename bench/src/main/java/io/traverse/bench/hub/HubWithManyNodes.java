package io.traverse.bench.hub;

import io.traverse.Traverse;
import io.traverse.TraverseConfig;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * One hub in a child JVM with {@code -Xmx256m}; N nodes in this JVM link to it. Reports the hub's
 * heap in use after a full GC and its thread count, before and with the nodes.
 */
final class HubWithManyNodes {
    record Result(int nodes, long heapIdle, long heapLoaded, long threadsIdle, long threadsLoaded, double linkSeconds) {
    }

    private HubWithManyNodes() {
    }

    static Result measure(int nodeCount) throws Exception {
        try (ChildHub hub = new ChildHub("bench-many", 2000, HubNetwork.TOKEN, List.of(), "256m")) {
            long[] idle = hub.heapThreadsNodes();
            List<Traverse> nodes = new ArrayList<>();
            long started = System.nanoTime();
            try {
                TraverseConfig config = TraverseConfig.builder().bind("127.0.0.1").discovery(false).token(HubNetwork.TOKEN)
                        .hubs(List.of(new InetSocketAddress("127.0.0.1", hub.port()))).build();
                for (int i = 0; i < nodeCount; i++) {
                    nodes.add(Traverse.start(config));
                }
                long giveUp = System.nanoTime() + Duration.ofSeconds(120).toNanos();
                long[] loaded = hub.heapThreadsNodes();
                while (loaded[2] < nodeCount) {
                    if (System.nanoTime() > giveUp) {
                        throw new IllegalStateException("only " + loaded[2] + " of " + nodeCount + " nodes linked within 120 s");
                    }
                    Thread.sleep(200);
                    loaded = hub.heapThreadsNodes();
                }
                double seconds = (System.nanoTime() - started) / 1e9;
                return new Result(nodeCount, idle[0], loaded[0], idle[1], loaded[1], seconds);
            } finally {
                for (Traverse node : nodes) {
                    node.close();
                }
            }
        }
    }
}
