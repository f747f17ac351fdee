package io.traverse.bench.hub;

import io.traverse.hub.Hub;
import io.traverse.hub.HubConfig;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * A hub in a process of its own, driven through stdin by {@link ChildHub}: prints
 * {@code PORT <port> ID <hub id>} once listening; answers {@code HEAP} with the heap in use after a full GC and
 * the JVM's thread count, {@code NODES} with the nodes connected (no GC, cheap enough to poll),
 * {@code RELAY} with the relay's link holds and window CREDITs so far; closes the hub at {@code QUIT} or end of input. A separate process is
 * what lets a scenario freeze a hub (SIGSTOP: silent, sockets open, as a hung machine) and measure
 * one hub's heap alone.
 *
 * <p>Arguments: {@code name keepaliveMillis token advertised|dial-only [peer host:port ...]}.
 */
public final class StandaloneHub {
    private StandaloneHub() {}

    /**
     * The hub's I/O threads: 1 unless {@code -Dbench.hub.ioThreads=N} (through {@code bench.hub.jvmArgs}) says otherwise;
     * 0 means the hub's own default, min(4, CPUs), as {@code traverse hub} runs.
     */
    private static final int IO_THREADS = Integer.getInteger("bench.hub.ioThreads", 1);
    /** The link port: 0 (any free one) unless {@code -Dbench.hub.port=N} asks for one (a hub restarted where its nodes look for it). */
    private static final int PORT = Integer.getInteger("bench.hub.port", 0);

    static final String ADVERTISED = "advertised";
    static final String DIAL_ONLY = "dial-only";

    public static void main(String[] args) throws IOException {
        HubConfig.Builder config = HubConfig.builder()
                .bindAddress("127.0.0.1")
                .port(PORT)
                .httpPort(-1)
                .name(args[0])
                .keepaliveInterval(Duration.ofMillis(Long.parseLong(args[1])))
                .token(args[2])
                .maxNodes(20_000);
        if (IO_THREADS > 0) {
            config.ioThreads(IO_THREADS);
        }
        if (DIAL_ONLY.equals(args[3])) {
            config.advertisedAddresses(java.util.List.of());
        }
        for (int i = 4; i < args.length; i++) {
            config.peer(args[i]);
        }
        try (Hub hub = Hub.start(config.build())) {
            System.out.println("PORT " + hub.linkAddress().getPort() + " ID " + hub.id());
            System.out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            for (String line = in.readLine(); line != null && !line.equals("QUIT"); line = in.readLine()) {
                if (line.equals("HEAP")) {
                    System.gc();
                    System.gc();
                    long used = ManagementFactory.getMemoryMXBean()
                            .getHeapMemoryUsage()
                            .getUsed();
                    int threads = ManagementFactory.getThreadMXBean().getThreadCount();
                    System.out.println("HEAP " + used + " THREADS " + threads + " NODES "
                            + hub.status().nodes().size());
                    System.out.flush();
                } else if (line.equals("RELAY")) {
                    System.out.println("RELAY " + hub.metrics().relayHolds() + " "
                            + hub.metrics().relayWindowCredits());
                    System.out.flush();
                } else if (line.equals("NODES")) {
                    System.out.println("NODES " + hub.status().nodes().size());
                    System.out.flush();
                }
            }
        }
    }
}
