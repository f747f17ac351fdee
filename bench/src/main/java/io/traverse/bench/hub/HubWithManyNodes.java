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
    record Result(
            int nodes, long heapIdle, long heapLoaded, long threadsIdle, long threadsLoaded, double linkSeconds) {}

    /** Long-poll nodes started before waiting for them to link. */
    private static final int RAMP = 100;

    private HubWithManyNodes() {}

    private static void awaitLinked(ChildHub hub, int count, Duration limit) throws Exception {
        long giveUp = System.nanoTime() + limit.toNanos();
        while (hub.heapThreadsNodes()[2] < count) {
            if (System.nanoTime() > giveUp) {
                throw new IllegalStateException("only " + hub.heapThreadsNodes()[2] + " of " + count
                        + " nodes linked within " + limit.toSeconds() + " s");
            }
            Thread.sleep(200);
        }
    }

    static Result measure(int nodeCount) throws Exception {
        return measure(nodeCount, false);
    }

    /** @param longPoll every node links by a long-poll session, and the hub JVM gets {@code -Xmx512m} */
    @SuppressWarnings("try") // the child hub is closed, interrupted or not, when the scenario ends
    static Result measure(int nodeCount, boolean longPoll) throws Exception {
        // Every keepalive of an idle long-poll link is an upstream request and a poll answer: 10 s rather than 2 s,
        // unless -Dbench.longpoll.keepaliveMillis says otherwise (2000: the default a user gets).
        int keepaliveMillis = longPoll ? Integer.getInteger("bench.longpoll.keepaliveMillis", 10_000) : 2000;
        try (ChildHub hub =
                new ChildHub("bench-many", keepaliveMillis, HubNetwork.TOKEN, List.of(), longPoll ? "512m" : "256m")) {
            long[] idle = hub.heapThreadsNodes();
            List<Traverse> nodes = new ArrayList<>();
            long started = System.nanoTime();
            try {
                TraverseConfig config = TraverseConfig.builder()
                        .bind("127.0.0.1")
                        .discovery(false)
                        .token(HubNetwork.TOKEN)
                        .hubs(List.of(new InetSocketAddress("127.0.0.1", hub.port())))
                        .set("traverse.http.tunnel", longPoll ? "longpoll" : "auto")
                        .hubKeepalive(Duration.ofMillis(keepaliveMillis))
                        .build();
                for (int i = 0; i < nodeCount; i++) {
                    nodes.add(Traverse.start(config));
                    if (longPoll && (i + 1) % RAMP == 0) {
                        // Long-poll handshakes take several HTTP round trips: a thousand at once exceed the hub's
                        // bound on handshakes in progress, so the nodes come in steps (steady state is what is
                        // measured).
                        awaitLinked(hub, i + 1, Duration.ofSeconds(60));
                    }
                }
                long giveUp = System.nanoTime() + Duration.ofSeconds(120).toNanos();
                long[] loaded = hub.heapThreadsNodes();
                while (loaded[2] < nodeCount) {
                    if (System.nanoTime() > giveUp) {
                        throw new IllegalStateException(
                                "only " + loaded[2] + " of " + nodeCount + " nodes linked within 120 s");
                    }
                    Thread.sleep(200);
                    loaded = hub.heapThreadsNodes();
                }
                double seconds = (System.nanoTime() - started) / 1e9;
                // -Dbench.holdSeconds=N: keep every node linked N s more (keepalives and polls running), checked each
                // second.
                int holdSeconds = Integer.getInteger("bench.holdSeconds", 0);
                long holdUntil =
                        System.nanoTime() + Duration.ofSeconds(holdSeconds).toNanos();
                while (System.nanoTime() < holdUntil) {
                    Thread.sleep(1000);
                    long linked = hub.heapThreadsNodes()[2];
                    if (linked < nodeCount) {
                        throw new IllegalStateException(
                                "only " + linked + " of " + nodeCount + " nodes still linked while holding");
                    }
                }
                if (holdSeconds > 0) {
                    loaded = hub.heapThreadsNodes();
                }
                return new Result(nodeCount, idle[0], loaded[0], idle[1], loaded[1], seconds);
            } finally {
                for (Traverse node : nodes) {
                    node.close();
                }
            }
        }
    }
}
