package io.traverse.bench.load;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * One {@link LoadClient} JVM of a load run: its latest {@code STAT}, its latencies added up since
 * the start and since the coordinator last took a window, and its {@code FAIL} lines.
 */
final class LoadClientProcess implements AutoCloseable {
    private final ChildJvm jvm;
    private final int group;
    private final List<String> failures = new CopyOnWriteArrayList<>();
    private final LatencyHistogram all = new LatencyHistogram();
    private volatile Stat last = Stat.EMPTY;

    LoadClientProcess(int group, String hub, int nodes, LoadOptions o, List<String> servers)
            throws IOException, InterruptedException {
        this.group = group;
        List<String> args = new ArrayList<>(List.of(
                hub,
                HubProcess.TOKEN,
                Integer.toString(nodes),
                Integer.toString(group),
                Integer.toString(o.chunk()),
                Long.toString(o.intervalMillis()),
                Integer.toString(o.readTimeoutMillis()),
                Long.toString(o.seed())));
        args.addAll(servers);
        jvm = new ChildJvm(
                "client-" + group,
                List.of("-Xmx" + o.clientHeap(), "-Xss256k"),
                LoadClient.class,
                args,
                "READY",
                this::line);
        jvm.ask(null, "READY", 120);
    }

    private void line(String line) {
        if (line.startsWith("STAT ")) {
            Stat s = Stat.parse(line);
            LatencyHistogram h = LatencyHistogram.decode(s.text("hist"));
            synchronized (this) {
                all.add(h);
            }
            last = s;
        } else if (line.startsWith("FAIL ")) {
            failures.add(jvm.name() + ": " + line.substring(5));
        }
    }

    int group() {
        return group;
    }

    void send(String command) {
        jvm.send(command);
    }

    /** Half-closes and verifies every connection; waits up to {@code seconds} for the client to say it is done. */
    void finish(long seconds) throws IOException, InterruptedException {
        jvm.ask("FINISH", "FINISHED", seconds);
    }

    /** The latest STAT; once {@link #finish} returned, the final counts (the client prints them before FINISHED). */
    Stat stat() {
        return last;
    }

    synchronized LatencyHistogram all() {
        LatencyHistogram copy = new LatencyHistogram();
        copy.add(all);
        return copy;
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

    void kill() throws InterruptedException {
        jvm.kill();
    }

    @Override
    public void close() throws InterruptedException {
        jvm.close();
    }
}
