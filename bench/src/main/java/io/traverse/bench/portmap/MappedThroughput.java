package io.traverse.bench.portmap;

import io.traverse.VirtualSocketAddress;
import io.traverse.bench.matrix.PairResult;
import io.traverse.identity.NodeIdentity;
import io.traverse.testbed.Host;
import io.traverse.testbed.NodeSettings;
import io.traverse.testbed.PortMappingGateway;
import io.traverse.testbed.RunningNode;
import io.traverse.testbed.Site;
import io.traverse.testbed.Testbed;
import io.traverse.testbed.TransferResult;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;

/**
 * The port-mapping target: a connection through a port the node mapped on its NAT router must carry at
 * least 0.9x the throughput of a direct connection between the same two hosts. A node behind a
 * router running miniupnpd maps its port (UPnP, PCP or NAT-PMP); a peer on the internet sends to
 * it through the mapping (mapped); the node sends to the peer over a direct connection out
 * through the same router (direct), and over a plain kernel socket (plain). Rounds interleave the
 * three; each moves {@code --bytes} with SHA-256 checked at both ends. MB/s leave the setup out.
 *
 * <pre>options: --protocol upnp|pcp|natpmp (upnp)  --bytes N (67108864)  --rounds N (10)</pre>
 */
public final class MappedThroughput {
    private static final int PLAIN_SERVICE = 7101;
    private static final int PLAIN_ECHO = 7102;

    private MappedThroughput() {}

    public static void main(String[] args) throws Exception {
        String protocol = "upnp";
        long bytes = 64L << 20;
        int rounds = 10;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--protocol" -> protocol = args[++i];
                case "--bytes" -> bytes = Long.parseLong(args[++i]);
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                default ->
                    throw new IllegalArgumentException("unknown option " + args[i]
                            + " (options: --protocol upnp|pcp|natpmp --bytes N --rounds N)");
            }
        }
        try (Testbed testbed = Testbed.create()) {
            Site home = testbed.site("home", "10.0.7.0/24");
            PortMappingGateway gateway = PortMappingGateway.start(home);
            Host nodeHost = home.host("n");
            Host peerHost = testbed.internet().host("peer");
            gateway.reachableFrom(peerHost);
            RunningNode node = RunningNode.start(
                    nodeHost,
                    NodeSettings.create()
                            .set("traverse.portmap", "true")
                            .set("traverse.portmap.protocols", protocol)
                            .set("traverse.modules", "direct")
                            .set("traverse.discovery", "false")
                            .logLevel("info"));
            RunningNode peer = RunningNode.start(
                    peerHost,
                    NodeSettings.create()
                            .set("traverse.modules", "direct")
                            .set("traverse.discovery", "false")
                            .plainPorts(PLAIN_SERVICE, PLAIN_ECHO)
                            .logLevel("warn"));
            NodeIdentity mappedIdentity = awaitMapping(node);
            VirtualSocketAddress mapped =
                    new VirtualSocketAddress(mappedIdentity, node.address().getPort());
            InetSocketAddress peerPlain = new InetSocketAddress(peerHost.address(), PLAIN_SERVICE);
            String made = node.recentLog()
                    .lines()
                    .filter(l -> l.contains("Port mapping made in"))
                    .findFirst()
                    .orElse("?");
            System.out.println("node: " + made.substring(Math.max(0, made.indexOf("Port mapping made"))));
            System.out.println();
            System.err.printf("mapped %s; %d rounds of %d bytes%n", mappedIdentity.externals(), rounds, bytes);
            Duration timeout = Duration.ofSeconds(10);
            // One of each to warm the JVMs up, not counted.
            check(peer.connect(mapped, bytes, timeout), "mapped", "direct");
            check(node.connect(peer.address(), bytes, timeout), "direct", "direct");
            check(node.plainConnect(peerPlain, bytes, timeout), "plain", "plain");
            double[] mappedMbps = new double[rounds];
            double[] directMbps = new double[rounds];
            double[] plainMbps = new double[rounds];
            for (int r = 0; r < rounds; r++) {
                mappedMbps[r] =
                        PairResult.megabytesPerSecond(check(peer.connect(mapped, bytes, timeout), "mapped", "direct"));
                directMbps[r] = PairResult.megabytesPerSecond(
                        check(node.connect(peer.address(), bytes, timeout), "direct", "direct"));
                plainMbps[r] = PairResult.megabytesPerSecond(
                        check(node.plainConnect(peerPlain, bytes, timeout), "plain", "plain"));
                System.err.printf(
                        "round %d: mapped %.0f, direct %.0f, plain %.0f MB/s%n",
                        r + 1, mappedMbps[r], directMbps[r], plainMbps[r]);
            }
            double m = median(mappedMbps);
            double d = median(directMbps);
            double p = median(plainMbps);
            System.out.printf(Locale.ROOT, "| path | median MB/s | min | max |%n|---|---|---|---|%n");
            row("mapped (" + protocol + "): peer outside -> node, through the mapped port", mappedMbps);
            row("direct: node -> peer, out through the same router (Traverse)", directMbps);
            row("plain: node -> peer, kernel socket, same route", plainMbps);
            System.out.printf(
                    Locale.ROOT, "%nmapped / direct = %.3f (target >= 0.9); mapped / plain = %.3f%n", m / d, m / p);
        }
    }

    private static NodeIdentity awaitMapping(RunningNode node) throws InterruptedException {
        long until = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (System.nanoTime() < until) {
            NodeIdentity id = node.identity();
            if (!id.externals().isEmpty()) {
                return id;
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("no port mapping within 20 s:\n" + node.recentLog());
    }

    private static TransferResult check(TransferResult r, String what, String module) {
        if (!r.ok() || !r.module().equals(module)) {
            throw new IllegalStateException(what + " transfer failed or took module " + r.module() + ": " + r);
        }
        return r;
    }

    private static void row(String label, double[] mbps) {
        double[] sorted = mbps.clone();
        Arrays.sort(sorted);
        System.out.printf(
                Locale.ROOT,
                "| %s | **%.0f** | %.0f | %.0f |%n",
                label,
                median(mbps),
                sorted[0],
                sorted[sorted.length - 1]);
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }
}
