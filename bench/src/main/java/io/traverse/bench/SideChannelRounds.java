package io.traverse.bench;

import io.traverse.SideChannel;
import io.traverse.Traverse;
import io.traverse.identity.NodeId;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Side-channel round trips: one node asks an echo service on another node and waits for the
 * answer, one request at a time, through one hub and through two hubs in a line (each hub a JVM
 * of its own, both nodes in this JVM, all on loopback). Prints the median, 10th and 90th
 * percentile of each run in microseconds. {@code bench/run-sidechannel.sh} runs it pinned to one
 * core, like the other runners.
 *
 * <pre>
 * options: --warmup N (3000 requests)  --requests N (3000)  --runs N (3)  --hubs 1,2
 *          --gap MS (0: back to back; else idle this long before each timed request)
 * </pre>
 */
public final class SideChannelRounds {
    private static final String SERVICE = "bench/echo";

    private SideChannelRounds() {}

    @SuppressWarnings("try") // the echo service answers by existing for the run
    public static void main(String[] args) throws Exception {
        int warmup = 3000;
        int requests = 3000;
        int runs = 3;
        int[] hubCounts = {1, 2};
        long gapMillis = 0;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--warmup" -> warmup = Integer.parseInt(args[++i]);
                case "--requests" -> requests = Integer.parseInt(args[++i]);
                case "--runs" -> runs = Integer.parseInt(args[++i]);
                case "--gap" -> gapMillis = Long.parseLong(args[++i]);
                case "--hubs" ->
                    hubCounts = Arrays.stream(args[++i].split(","))
                            .mapToInt(Integer::parseInt)
                            .toArray();
                default ->
                    throw new IllegalArgumentException("unknown option " + args[i]
                            + " (--warmup N, --requests N, --runs N, --hubs 1,2, --gap MS)");
            }
        }
        for (int hubs : hubCounts) {
            try (HubLine line = HubLine.start(hubs);
                    Traverse server = line.routedNode(hubs - 1);
                    Traverse client = line.routedNode(0)) {
                line.awaitRoute(client, server);
                NodeId target = server.identity().id().orElseThrow();
                try (SideChannel.Registration echo =
                        server.sideChannel().register(SERVICE, (sender, request) -> request)) {
                    SideChannel side = client.sideChannel();
                    byte[] payload = new byte[32];
                    long[] cold = time(side, target, payload, Math.min(5, warmup), 0);
                    System.out.println(
                            "side-channel-" + hubs + " first requests (cold): " + Arrays.toString(cold) + " us");
                    time(side, target, payload, warmup, 0);
                    for (int run = 1; run <= runs; run++) {
                        long[] micros = time(side, target, payload, requests, gapMillis);
                        Arrays.sort(micros);
                        System.out.printf(
                                Locale.ROOT,
                                "side-channel-%d run %d: median %.0f us, p10 %.0f us, p90 %.0f us (%d requests, %d ms apart)%n",
                                hubs,
                                run,
                                (double) micros[micros.length / 2],
                                (double) micros[micros.length / 10],
                                (double) micros[micros.length * 9 / 10],
                                requests,
                                gapMillis);
                    }
                }
            }
        }
    }

    private static long[] time(SideChannel side, NodeId target, byte[] payload, int count, long gapMillis)
            throws Exception {
        long[] micros = new long[count];
        for (int i = 0; i < count; i++) {
            if (gapMillis > 0) {
                // Idle between requests, as between connection setups: threads park, caches cool.
                Thread.sleep(gapMillis);
            }
            long start = System.nanoTime();
            byte[] answer = side.request(target, SERVICE, payload, Duration.ofSeconds(10))
                    .get(10, TimeUnit.SECONDS);
            micros[i] = TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - start);
            if (answer.length != payload.length) {
                throw new IllegalStateException("the echo answered " + answer.length + " bytes to " + payload.length);
            }
        }
        return micros;
    }
}
