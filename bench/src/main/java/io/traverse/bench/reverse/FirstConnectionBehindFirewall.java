package io.traverse.bench.reverse;

import io.traverse.ConnectionInfo;
import io.traverse.Traverse;
import io.traverse.TraverseConfig;
import io.traverse.TraverseServerSocket;
import io.traverse.VirtualSocketAddress;
import io.traverse.firewall.FirewallRule;
import io.traverse.hub.Hub;
import io.traverse.hub.HubConfig;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The target: the first connection to a node behind a firewall that drops silently, until the
 * socket works (one byte echoed). One hub and the target node in this JVM; every round starts a
 * fresh client node (nothing cached) and times {@code createSocket} plus the echo. The simulated
 * firewall's {@code drop} accepts TCP and never answers the handshake, so the direct attempt waits
 * for its deadline (10 s here) while the racer starts reverse after the stagger (100 ms).
 *
 * <p>With {@code --cached}, one client node makes every connection (after a warm-up), so reverse
 * is cached and the code is warm: what a settled node pays per reverse connection at loopback
 * latency. {@code --rule none} (no firewall, so direct wins) is the control: the same harness's cost
 * of a cached direct connection.
 *
 * <pre>options: --rounds N (30)  --rule drop|deny|none (drop)  --cached</pre>
 */
public final class FirstConnectionBehindFirewall {
    private static final String TOKEN = "bench-reverse-token";
    /** Connections a cached run makes before it counts: JIT and the module cache. */
    private static final int WARM_UP = 200;

    private FirstConnectionBehindFirewall() {}

    public static void main(String[] args) throws Exception {
        int rounds = 30;
        String rule = "drop";
        boolean cached = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--rule" -> rule = args[++i];
                case "--cached" -> cached = true;
                default ->
                    throw new IllegalArgumentException(
                            "unknown option " + args[i] + " (options: --rounds N --rule drop|deny|none --cached)");
            }
        }
        FirewallRule[] firewall = switch (rule) {
            case "deny" -> new FirewallRule[] {FirewallRule.deny("all")};
            case "drop" -> new FirewallRule[] {FirewallRule.drop("all")};
            case "none" -> new FirewallRule[0];
            default -> throw new IllegalArgumentException("--rule is drop, deny or none, not " + rule);
        };
        List<AutoCloseable> open = new ArrayList<>();
        try {
            Hub hub = Hub.start(HubConfig.builder()
                    .bindAddress("127.0.0.1")
                    .port(0)
                    .httpPort(-1)
                    .name("bench-reverse-hub")
                    .token(TOKEN)
                    .ioThreads(1)
                    .build());
            open.add(hub);
            Traverse target = node(hub, firewall);
            open.add(target);
            TraverseServerSocket server = target.serverSocketFactory().createServerSocket(4000);
            open.add(server);
            Thread echo = new Thread(
                    () -> {
                        while (!server.isClosed()) {
                            try (Socket s = server.accept()) {
                                int b = s.getInputStream().read();
                                s.getOutputStream().write(b);
                                s.getInputStream().read(); // until the client closes
                            } catch (IOException e) {
                                // closed at the end, or a client gone: next
                            }
                        }
                    },
                    "bench-echo");
            echo.setDaemon(true);
            echo.start();
            VirtualSocketAddress address = (VirtualSocketAddress) server.getLocalSocketAddress();
            double[] millis = new double[rounds];
            String module = null;
            Traverse warm = null;
            if (cached) { // one client node throughout; its first connection and a warm-up are not counted
                warm = node(hub);
                open.add(warm);
                for (int w = 0; w < WARM_UP; w++) {
                    timedEcho(warm, address);
                }
            }
            for (int r = 0; r < rounds; r++) {
                Traverse client = warm != null ? warm : node(hub);
                try {
                    long t0 = System.nanoTime();
                    module = timedEcho(client, address);
                    millis[r] = (System.nanoTime() - t0) / 1e6;
                } finally {
                    if (warm == null) {
                        client.close();
                    }
                }
            }
            double[] sorted = millis.clone();
            Arrays.sort(sorted);
            System.out.printf(
                    Locale.ROOT,
                    "%s connection behind a '%s' firewall, %d rounds, won by %s: median %.2f ms, "
                            + "p90 %.2f ms, max %.2f ms (%s; connect + 1-byte echo)%n",
                    cached ? "cached" : "first",
                    rule,
                    rounds,
                    module,
                    sorted[rounds / 2],
                    sorted[rounds * 9 / 10],
                    sorted[rounds - 1],
                    cached ? "one warmed-up client node" : "each round a fresh client node");
            if (!cached) {
                System.out.printf(
                        Locale.ROOT,
                        "target: <= 600 ms -> %s%n",
                        sorted[rounds - 1] <= 600
                                ? "MET (max)"
                                : sorted[rounds / 2] <= 600 ? "MET at the median, not at the max" : "NOT MET");
            }
        } finally {
            for (int i = open.size() - 1; i >= 0; i--) {
                open.get(i).close();
            }
        }
    }

    /** Connects, echoes one byte, closes; returns the module that won. */
    private static String timedEcho(Traverse client, VirtualSocketAddress address) throws IOException {
        try (Socket s = client.socketFactory().createSocket(address.getHostString(), address.getPort())) {
            s.getOutputStream().write(7);
            if (s.getInputStream().read() != 7) {
                throw new IllegalStateException("echo failed");
            }
            ConnectionInfo info = client.connectionInfo(s).orElseThrow();
            return info.module();
        }
    }

    private static Traverse node(Hub hub, FirewallRule... rules) throws Exception {
        Traverse node = Traverse.start(TraverseConfig.builder()
                .bind("127.0.0.1")
                .discovery(false)
                .token(TOKEN)
                .hubs(List.of(
                        new InetSocketAddress("127.0.0.1", hub.linkAddress().getPort())))
                .modules("direct", "reverse")
                .firewall(rules)
                .connectTimeout(Duration.ofSeconds(10))
                .build());
        if (!node.awaitHubLink(Duration.ofSeconds(10))) {
            node.close();
            throw new IllegalStateException("node did not link to the hub: " + node.hubLinkStatus());
        }
        return node;
    }
}
