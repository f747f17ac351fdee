package io.traverse.bench.load;

import io.traverse.bench.hub.StandaloneHub;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * A hub of a load run: a {@link StandaloneHub} in a JVM of its own, so that its resident memory,
 * threads and CPU time are its alone ({@link ProcessSample}) and its heap can be measured after a
 * full GC ({@code HEAP}, which runs {@code System.gc()} in the hub).
 */
final class HubProcess implements AutoCloseable {
    static final String TOKEN = "load-token";
    private final ChildJvm jvm;
    private final int port;

    /**
     * @param inLine one of several hubs in a line: it advertises no address, so that only the hubs that
     *        dial it link with it (a line, not the mesh gossip would make)
     * @param previous the hub before this one in the line, which this one dials; null: the first or only hub
     */
    HubProcess(int index, String heap, int ioThreads, boolean inLine, HubProcess previous)
            throws IOException, InterruptedException {
        this(index, heap, ioThreads, inLine, previous, 0);
    }

    /** @param wantedPort the link port, 0: any free one (a restarted hub takes its predecessor's) */
    HubProcess(int index, String heap, int ioThreads, boolean inLine, HubProcess previous, int wantedPort)
            throws IOException, InterruptedException {
        List<String> options = new ArrayList<>(List.of(
                "-Xmx" + heap,
                "-Dbench.hub.ioThreads=" + ioThreads,
                "-Dbench.hub.port=" + wantedPort,
                // Why the hub closed a link is what a load run must show.
                "-Dorg.slf4j.simpleLogger.log.io.traverse.hub.link=info"));
        List<String> args =
                new ArrayList<>(List.of("load-hub-" + index, "5000", TOKEN, inLine ? "dial-only" : "advertised"));
        if (previous != null) {
            args.add(previous.address());
        }
        // HUB_JAVA: the hubs on another Java than the harness (e.g. the harness on 25 for virtual threads, the hubs on
        // 17).
        String hubJava = System.getenv().getOrDefault("HUB_JAVA", "");
        jvm = new ChildJvm(
                "hub-" + index,
                hubJava.isEmpty() ? null : hubJava,
                options,
                StandaloneHub.class,
                args,
                "PORT ",
                line -> {});
        String first = jvm.ask(null, "PORT ", 60);
        port = Integer.parseInt(first.substring(5).trim().split(" ")[0]); // "PORT <port> ID <hub id>"
    }

    int port() {
        return port;
    }

    /** SIGKILL, as a crashed hub machine. */
    void kill() throws InterruptedException {
        jvm.kill();
    }

    String address() {
        return "127.0.0.1:" + port;
    }

    long pid() {
        return jvm.pid();
    }

    ProcessSample sample() throws IOException {
        return ProcessSample.of(jvm.pid());
    }

    /** Heap in use after a full GC, in bytes. */
    long heapAfterGc() throws IOException, InterruptedException {
        String[] f = jvm.ask("HEAP", "HEAP ", 60).split(" ");
        return Long.parseLong(f[1]);
    }

    /** The hub's relay backpressure so far: links held, and CREDITs it made for connections held to their windows. */
    String relayCounters() throws IOException, InterruptedException {
        String[] f = jvm.ask("RELAY", "RELAY ", 30).trim().split(" ");
        return f[1] + " link holds, " + f[2] + " window CREDITs";
    }

    int nodes() throws IOException, InterruptedException {
        return Integer.parseInt(jvm.ask("NODES", "NODES ", 30).substring(6).trim());
    }

    @Override
    public void close() throws InterruptedException {
        jvm.close();
    }
}
