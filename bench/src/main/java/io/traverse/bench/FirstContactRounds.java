package io.traverse.bench;

import io.traverse.Traverse;
import io.traverse.TraverseConfig;
import io.traverse.TraverseServerSocket;
import io.traverse.VirtualSocketAddress;
import java.io.IOException;
import java.net.Socket;
import java.util.Arrays;
import java.util.Locale;

/**
 * The first connection between two nodes, which pays for asymmetric cryptography (the key proof's
 * full agreement, and with {@code traverse.encrypt=all} a full TLS 1.3 handshake), against the
 * cached connection after it. In one warm JVM: a server node with the default configuration, and
 * for each round a fresh client node per contender ({@code default}, {@code tls}: the client with
 * {@code traverse.encrypt=all}), interleaved; each client connects once (first contact), then
 * {@code --cached} times more. Every connection is timed to the server's first byte. A fresh node
 * makes its TLS contexts in the background at start (encrypt=all); the first connect comes 200 ms
 * later, as a node that started a moment ago.
 *
 * <pre>
 * options: --rounds N (30)  --cached N (50)  --warmup N (10 rounds untimed)
 * </pre>
 */
public final class FirstContactRounds {
    private FirstContactRounds() {}

    public static void main(String[] args) throws Exception {
        int rounds = 30;
        int cached = 50;
        int warmup = 10;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--cached" -> cached = Integer.parseInt(args[++i]);
                case "--warmup" -> warmup = Integer.parseInt(args[++i]);
                default ->
                    throw new IllegalArgumentException(
                            "usage: FirstContactRounds [--rounds N] [--cached N] [--warmup N]");
            }
        }
        String[] names = {"default", "tls"};
        try (Traverse server = Traverse.start(TraverseConfig.builder().build());
                TraverseServerSocket listening = server.serverSocketFactory().createServerSocket(0, 200)) {
            Loopback.serverThread("first-contact-acceptor", () -> {
                while (!listening.isClosed()) {
                    try (Socket s = listening.accept()) {
                        s.getOutputStream().write(1);
                    } catch (IOException e) {
                        // closing, or a client gone early
                    }
                }
            });
            VirtualSocketAddress target = (VirtualSocketAddress) listening.getLocalSocketAddress();
            double[][] first = new double[names.length][rounds];
            double[][] cachedMedian = new double[names.length][rounds];
            long[] buffer = new long[cached];
            for (int r = -warmup; r < rounds; r++) {
                for (int k = 0; k < names.length; k++) {
                    int c = (k + Math.max(r, 0)) % names.length; // rotate the order
                    TraverseConfig.Builder config = TraverseConfig.builder();
                    if (names[c].equals("tls")) {
                        config.set("traverse.encrypt", "all");
                    }
                    try (Traverse client = Traverse.start(config.build())) {
                        Thread.sleep(200); // the node makes its TLS contexts in the background at start: not timed
                        long f = timeOne(client, target);
                        for (int i = 0; i < cached; i++) {
                            buffer[i] = timeOne(client, target);
                        }
                        if (r >= 0) {
                            first[c][r] = f / 1e3;
                            long[] sorted = buffer.clone();
                            Arrays.sort(sorted);
                            cachedMedian[c][r] = sorted[cached / 2] / 1e3;
                        }
                    }
                }
            }
            System.out.printf(
                    Locale.ROOT,
                    "FirstContactRounds: %d rounds (after %d untimed), %d cached connects each; CPUs visible: %d%n",
                    rounds,
                    warmup,
                    cached,
                    Runtime.getRuntime().availableProcessors());
            for (int c = 0; c < names.length; c++) {
                System.out.printf(
                        Locale.ROOT,
                        "%-8s first contact: median %.0f us (p10 %.0f, p90 %.0f); cached: median of round medians %.0f us%n",
                        names[c],
                        percentile(first[c], 50),
                        percentile(first[c], 10),
                        percentile(first[c], 90),
                        percentile(cachedMedian[c], 50));
            }
        }
    }

    /** Connect plus the server's first byte, in nanoseconds. */
    private static long timeOne(Traverse client, VirtualSocketAddress target) throws IOException {
        long start = System.nanoTime();
        try (Socket s = client.socketFactory().connect(target, 10_000)) {
            if (s.getInputStream().read() != 1) {
                throw new IOException("the server's first byte did not come");
            }
            long took = System.nanoTime() - start;
            s.setSoLinger(true, 0);
            return took;
        }
    }

    private static double percentile(double[] values, int p) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[Math.min(sorted.length - 1, (int) Math.round(p / 100.0 * (sorted.length - 1)))];
    }
}
