package io.traverse.bench.hub;

import io.traverse.SideChannel;
import io.traverse.Traverse;
import io.traverse.TraverseConfig;
import io.traverse.hub.Hub;
import io.traverse.hub.HubConfig;
import io.traverse.identity.NodeId;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Side-channel request and answer between two nodes whose hubs are two links apart: hubs A — B — C
 * in this JVM, A and C dial-out-only (so they cannot link directly), node L on A, node R on C
 * answering an echo service. Times {@code SideChannel.request(...).get()} end to end.
 */
final class SideChannelLatency {
    private SideChannelLatency() {}

    /** Sorted round trips in microseconds. */
    static long[] measure(int warmup, int count) throws Exception {
        List<AutoCloseable> open = new ArrayList<>();
        try {
            Hub b = start(open, HubConfig.builder().name("bench-side-b"));
            String viaB = "127.0.0.1:" + b.linkAddress().getPort();
            Hub a = start(
                    open,
                    HubConfig.builder()
                            .name("bench-side-a")
                            .advertisedAddresses(List.of())
                            .peer(viaB));
            Hub c = start(
                    open,
                    HubConfig.builder()
                            .name("bench-side-c")
                            .advertisedAddresses(List.of())
                            .peer(viaB));
            Traverse left = node(open, a);
            Traverse right = node(open, c);
            right.sideChannel().register("echo", (sender, request) -> request);
            NodeId target = right.identity().id().orElseThrow();
            SideChannel side = left.sideChannel();
            long giveUp = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (true) {
                try {
                    side.request(target, "echo", new byte[16], Duration.ofSeconds(2))
                            .get();
                    break;
                } catch (java.util.concurrent.ExecutionException notYet) {
                    if (System.nanoTime() > giveUp) {
                        throw new IllegalStateException("the nodes never reached each other: " + notYet.getCause());
                    }
                    Thread.sleep(50);
                }
            }
            byte[] payload = new byte[16];
            for (int i = 0; i < warmup; i++) {
                side.request(target, "echo", payload, Duration.ofSeconds(5)).get();
            }
            long[] micros = new long[count];
            for (int i = 0; i < count; i++) {
                long t0 = System.nanoTime();
                side.request(target, "echo", payload, Duration.ofSeconds(5)).get();
                micros[i] = (System.nanoTime() - t0) / 1000;
            }
            Arrays.sort(micros);
            return micros;
        } finally {
            for (int i = open.size() - 1; i >= 0; i--) {
                open.get(i).close();
            }
        }
    }

    private static Hub start(List<AutoCloseable> open, HubConfig.Builder config) throws Exception {
        Hub hub = Hub.start(config.bindAddress("127.0.0.1")
                .port(0)
                .httpPort(-1)
                .token(HubNetwork.TOKEN)
                .ioThreads(1)
                .build());
        open.add(hub);
        return hub;
    }

    private static Traverse node(List<AutoCloseable> open, Hub hub) throws Exception {
        Traverse node = Traverse.start(TraverseConfig.builder()
                .bind("127.0.0.1")
                .discovery(false)
                .token(HubNetwork.TOKEN)
                .hubs(List.of(
                        new InetSocketAddress("127.0.0.1", hub.linkAddress().getPort())))
                .build());
        open.add(node);
        if (!node.awaitHubLink(Duration.ofSeconds(10))) {
            throw new IllegalStateException("node did not link to " + hub.name() + ": " + node.hubLinkStatus());
        }
        return node;
    }
}
