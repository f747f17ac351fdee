package io.traverse.bench.load;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** The {@link StreamServer} JVM of a load run, its server addresses and its latest {@code STAT}. */
final class StreamServerProcess implements AutoCloseable {
    static final int VIRTUAL_PORT = 2100;
    private final ChildJvm jvm;
    private final List<String> addresses = new CopyOnWriteArrayList<>();
    private final List<String> failures = new CopyOnWriteArrayList<>();
    private volatile Stat last = Stat.EMPTY;
    private volatile String plainAddress;

    StreamServerProcess(String hub, int nodes, int readTimeoutMillis, String heap)
            throws IOException, InterruptedException {
        jvm = new ChildJvm(
                "server",
                List.of("-Xmx" + heap, "-Xss256k"),
                StreamServer.class,
                List.of(
                        hub,
                        HubProcess.TOKEN,
                        Integer.toString(nodes),
                        Integer.toString(VIRTUAL_PORT),
                        Integer.toString(readTimeoutMillis)),
                "READY",
                this::line);
        jvm.ask(null, "READY", 120);
    }

    private void line(String line) {
        if (line.startsWith("STAT ")) {
            last = Stat.parse(line);
        } else if (line.startsWith("PLAIN ")) {
            plainAddress = line.substring(6).trim();
        } else if (line.startsWith("SERVER ")) {
            addresses.add(line.split(" ", 3)[2]);
        } else if (line.startsWith("FAIL ")) {
            failures.add("server: " + line.substring(5));
        }
    }

    List<String> addresses() {
        return new ArrayList<>(addresses);
    }

    /** The plain loopback socket serving the same streams (control runs), as {@code plain:127.0.0.1:PORT}. */
    String plainAddress() {
        return "plain:" + plainAddress;
    }

    Stat stat() {
        return last;
    }

    /** Connections of client group {@code group} the server still has open. */
    long open(int group) {
        return last.counts("open").getOrDefault(Integer.toString(group), 0L);
    }

    long openTotal() {
        return last.counts("open").values().stream().mapToLong(Long::longValue).sum();
    }

    List<String> failureLines() {
        return failures;
    }

    long pid() {
        return jvm.pid();
    }

    boolean alive() {
        return jvm.alive();
    }

    @Override
    public void close() throws InterruptedException {
        jvm.close();
    }
}
