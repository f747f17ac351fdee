package io.traverse.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What relaying costs each HTTP proxy: plain TCP through its CONNECT tunnel on loopback,
 * 64 KiB writes, and the CPU time the proxy process used per GiB relayed (user and system, from
 * /proc), beside the throughput. CPU time per byte hardly depends on what else runs on the
 * machine, so it compares the proxies where a throughput run on a busy machine cannot.
 *
 * <pre>
 * java -cp bench/target/benchmarks.jar io.traverse.bench.ProxyRelayCost [--mib N (1024)] [--rounds N (3)]
 * </pre>
 */
public final class ProxyRelayCost {
    private static final int CHUNK = 64 * 1024;
    private static final long WARMUP_BYTES = 64L << 20;

    private ProxyRelayCost() {}

    public static void main(String[] args) throws Exception {
        long mib = 1024;
        int rounds = 3;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--mib" -> mib = JmhRuns.atLeast(args[i], args, ++i, 1);
                case "--rounds" -> rounds = JmhRuns.atLeast(args[i], args, ++i, 1);
                default -> throw new IllegalArgumentException("unknown option " + args[i] + " (--mib N, --rounds N)");
            }
        }
        System.out.printf(
                Locale.ROOT,
                "ProxyRelayCost: %d MiB per run through each proxy's CONNECT tunnel on loopback, %d rounds%n",
                mib,
                rounds);
        for (ChildHttpProxy.Kind kind : ChildHttpProxy.Kind.values()) {
            if (!java.nio.file.Files.isExecutable(kind.binary)) {
                System.out.printf("%-9s not installed (Debian package %s)%n", kind, kind.debianPackage);
                continue;
            }
            List<double[]> runs = new ArrayList<>();
            for (int r = 0; r < rounds; r++) {
                double[] run = relay(kind, mib << 20);
                runs.add(run);
                System.out.printf(
                        Locale.ROOT,
                        "%-9s round %d: %7.0f MB/s, proxy CPU %.2f s per GiB%n",
                        kind,
                        r + 1,
                        run[0],
                        run[1]);
            }
            double[] mbps = runs.stream().mapToDouble(x -> x[0]).toArray();
            double[] cpu = runs.stream().mapToDouble(x -> x[1]).toArray();
            System.out.printf(
                    Locale.ROOT,
                    "%-9s median: %7.0f MB/s, proxy CPU %.2f s per GiB (min %.2f, max %.2f)%n",
                    kind,
                    JmhRuns.median(mbps),
                    JmhRuns.median(cpu),
                    JmhRuns.min(cpu),
                    JmhRuns.max(cpu));
        }
    }

    /** One fresh proxy and tunnel: {MB/s, proxy CPU seconds per GiB} for {@code bytes} after a warm-up. */
    private static double[] relay(ChildHttpProxy.Kind kind, long bytes) throws IOException, InterruptedException {
        try (ChildHttpProxy proxy = new ChildHttpProxy(kind);
                ServerSocket listener = Loopback.plainServer()) {
            Socket client = proxy.tunnelTo(new InetSocketAddress(Loopback.LOOPBACK, listener.getLocalPort()));
            Socket server = Loopback.tune(listener.accept());
            long[] received = new long[1];
            Thread drain = Loopback.serverThread("relay-drain", () -> {
                byte[] buffer = new byte[CHUNK];
                try (InputStream in = server.getInputStream()) {
                    for (int n; (n = in.read(buffer)) >= 0; ) {
                        received[0] += n;
                    }
                } catch (IOException e) {
                    received[0] = -1;
                }
            });
            byte[] chunk = new byte[CHUNK];
            try (client;
                    server) {
                OutputStream out = client.getOutputStream();
                for (long sent = 0; sent < WARMUP_BYTES; sent += CHUNK) {
                    out.write(chunk);
                }
                double cpuBefore = proxy.cpuTime().toNanos() / 1e9;
                long start = System.nanoTime();
                for (long sent = 0; sent < bytes; sent += CHUNK) {
                    out.write(chunk);
                }
                client.shutdownOutput();
                drain.join();
                double seconds = (System.nanoTime() - start) / 1e9;
                double cpu = proxy.cpuTime().toNanos() / 1e9 - cpuBefore;
                if (received[0] != WARMUP_BYTES + bytes) {
                    throw new IOException(kind + " relayed " + received[0] + " bytes of " + (WARMUP_BYTES + bytes));
                }
                return new double[] {bytes / seconds / 1e6, cpu / (bytes / (double) (1L << 30))};
            }
        }
    }
}
