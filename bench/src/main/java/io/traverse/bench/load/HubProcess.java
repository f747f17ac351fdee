package io.traverse.bench.load;

import io.traverse.bench.hub.StandaloneHub;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The hub of a load run: a {@link StandaloneHub} in a JVM of its own, so that its resident memory,
 * threads and CPU time are its alone ({@link ProcessSample}) and its heap can be measured after a
 * full GC ({@code HEAP}, which runs {@code System.gc()} in the hub).
 */
final class HubProcess implements AutoCloseable {
    static final String TOKEN = "load-token";
    private final ChildJvm jvm;
    private final int port;

    HubProcess(String heap, int ioThreads) throws IOException, InterruptedException {
        List<String> options = new ArrayList<>(List.of("-Xmx" + heap, "-Dbench.hub.ioThreads=" + ioThreads));
        jvm = new ChildJvm("hub", options, StandaloneHub.class, List.of("load-hub", "5000", TOKEN, "advertised"), "PORT ", line -> { });
        String first = jvm.ask(null, "PORT ", 60);
        port = Integer.parseInt(first.substring(5).trim());
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

    int nodes() throws IOException, InterruptedException {
        return Integer.parseInt(jvm.ask("NODES", "NODES ", 30).substring(6).trim());
    }

    @Override
    public void close() throws InterruptedException {
        jvm.close();
    }
}
