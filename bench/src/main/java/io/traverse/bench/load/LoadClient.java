package io.traverse.bench.load;

import io.traverse.Traverse;
import io.traverse.TraverseConfig;
import io.traverse.VirtualSocketAddress;
import io.traverse.identity.NodeId;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A client process of the load runs ({@link LoadRun} starts several): emulated nodes, each a
 * {@link Traverse} of its own with only the routed module, linked to one hub, sharing out the
 * process's {@link PacedConnection}s, one thread each. Driven by lines on stdin:
 * <ul>
 *   <li>{@code OPEN n rampMillis}: n more connections that live until FINISH, started evenly over rampMillis;</li>
 *   <li>{@code CHURN n meanLifetimeMillis rampMillis}: n slots, each opening connections one after another
 *       with exponentially distributed lifetimes of that mean (so n stay connected on average), until FINISH;</li>
 *   <li>{@code FINISH}: every connection half-closes and verifies; then {@code FINISHED}.</li>
 * </ul>
 * Prints {@code READY} once every node is linked, a {@link StreamTally} {@code STAT} line a
 * second and {@code FAIL} lines for the first failures of each kind.
 *
 * <p>Arguments: {@code hubHost:port token nodes group chunkBytes intervalMillis readTimeoutMillis seed serverAddress...};
 * a server address {@code plain:127.0.0.1:PORT} is dialled with a plain socket, not through a node
 * (the control runs of {@code --transport plain}: the same harness without Traverse).
 */
public final class LoadClient {
    private final PrintStream out = System.out;
    private final StreamTally tally = new StreamTally(out);
    private final List<Traverse> nodes = new ArrayList<>();
    private final List<VirtualSocketAddress> servers = new ArrayList<>();
    private final List<InetSocketAddress> plainServers = new ArrayList<>();
    private final List<Thread> slots = new ArrayList<>();
    private final CountDownLatch finish = new CountDownLatch(1);
    private int group;
    private int chunk;
    private long intervalNanos;
    private int readTimeoutMillis;
    private long seed;

    private LoadClient() {}

    /** The configuration of every node of a load run: loopback only, the routed module only, one hub. */
    static TraverseConfig nodeConfig(InetSocketAddress hub, String token) {
        return TraverseConfig.builder()
                .bind("127.0.0.1")
                .discovery(false)
                .token(token)
                .hubs(List.of(hub))
                .modules("routed")
                .connectTimeout(Duration.ofSeconds(20))
                .build();
    }

    public static void main(String[] args) throws Exception {
        LoadClient client = new LoadClient();
        String[] hub = args[0].split(":");
        TraverseConfig config = nodeConfig(new InetSocketAddress(hub[0], Integer.parseInt(hub[1])), args[1]);
        int nodeCount = Integer.parseInt(args[2]);
        client.group = Integer.parseInt(args[3]);
        client.chunk = Integer.parseInt(args[4]);
        client.intervalNanos = TimeUnit.MILLISECONDS.toNanos(Long.parseLong(args[5]));
        client.readTimeoutMillis = Integer.parseInt(args[6]);
        client.seed = Long.parseLong(args[7]);
        for (int i = 8; i < args.length; i++) {
            if (args[i].startsWith("plain:")) {
                String[] hostPort = args[i].substring(6).split(":");
                client.plainServers.add(new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1])));
            } else {
                client.servers.add(VirtualSocketAddress.parse(args[i]));
            }
        }
        try {
            for (int i = 0; i < nodeCount; i++) {
                client.nodes.add(Traverse.start(config));
            }
            for (Traverse node : client.nodes) {
                if (!node.awaitHubLink(Duration.ofSeconds(60))) {
                    throw new IOException("a client node did not link to the hub within 60 s");
                }
            }
            client.awaitRoutes();
            client.out.println("READY");
            Thread stats = new Thread(client::printStats, "stats");
            stats.setDaemon(true);
            stats.start();
            client.obey(new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)));
        } finally {
            for (Traverse node : client.nodes) {
                node.close();
            }
        }
    }

    /** Waits until the first node's hub knows every server node (with hubs in a line, gossip takes a moment). */
    private void awaitRoutes() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        for (VirtualSocketAddress server : servers) {
            NodeId id = server.node().id().orElseThrow();
            while (nodes.get(0)
                    .hubDirectory()
                    .locateNode(id)
                    .get(10, TimeUnit.SECONDS)
                    .isEmpty()) {
                if (System.nanoTime() > deadline) {
                    throw new IOException("no hub knows server node " + id + " after 60 s");
                }
                Thread.sleep(100);
            }
        }
    }

    private void obey(BufferedReader in) throws Exception {
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            String[] f = line.trim().split("\\s+");
            switch (f[0]) {
                case "OPEN" -> start(Integer.parseInt(f[1]), 0, Long.parseLong(f[2]));
                case "CHURN" -> start(Integer.parseInt(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3]));
                case "FINISH" -> {
                    finish.countDown();
                    for (Thread slot : slots) {
                        slot.join();
                    }
                    synchronized (out) {
                        out.println(tally.statLine());
                        out.println("FINISHED");
                    }
                }
                default -> out.println("FAIL usage unknown command " + line);
            }
        }
    }

    /** Starts {@code n} slots, evenly over {@code rampMillis}; {@code meanLifetimeMillis} 0: one connection each, until FINISH. */
    private void start(int n, long meanLifetimeMillis, long rampMillis) throws InterruptedException {
        for (int i = 0; i < n; i++) {
            int slot = slots.size();
            long slotSeed = seed + 1_000_000L * group + 1000L * slot;
            PacedConnection.Dialer dialer;
            if (plainServers.isEmpty()) {
                Traverse node = nodes.get(slot % nodes.size());
                VirtualSocketAddress server = servers.get(slot % servers.size());
                dialer = () -> node.socketFactory().createSocket(server.getHostString(), server.getPort());
            } else {
                InetSocketAddress server = plainServers.get(slot % plainServers.size());
                dialer = () -> new java.net.Socket(server.getAddress(), server.getPort());
            }
            slots.add(ConnectionThreads.start("slot-" + slot, () -> runSlot(dialer, slotSeed, meanLifetimeMillis)));
            if (rampMillis > 0 && finish.await(rampMillis / n, TimeUnit.MILLISECONDS)) {
                return;
            }
        }
    }

    private void runSlot(PacedConnection.Dialer dialer, long slotSeed, long meanLifetimeMillis) {
        Random lifetimes = new Random(slotSeed);
        try {
            for (int i = 0; finish.getCount() > 0; i++) {
                long lifetime = meanLifetimeMillis == 0
                        ? Long.MAX_VALUE
                        : (long) (-Math.log(1 - lifetimes.nextDouble())
                                * TimeUnit.MILLISECONDS.toNanos(meanLifetimeMillis));
                boolean connected = new PacedConnection(
                                dialer, chunk, intervalNanos, slotSeed + i, group, readTimeoutMillis, tally)
                        .run(lifetime, finish);
                if (meanLifetimeMillis == 0 || !connected && finish.await(1, TimeUnit.SECONDS)) {
                    return; // a connection that could not connect is tried again a second later
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void printStats() {
        while (true) {
            String line = tally.statLine();
            synchronized (out) {
                out.println(line);
            }
            try {
                Thread.sleep(1000);
            } catch (InterruptedException e) {
                return;
            }
        }
    }
}
