package io.traverse.bench.hub;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A {@link StandaloneHub} in a child JVM on this JVM's class path (it inherits this process's CPU
 * affinity, so a pinned benchmark keeps its hubs on the same core). Extra JVM options for the hubs
 * may be given, separated by commas, in the system property {@code bench.hub.jvmArgs} (for JMH
 * forks: {@code -jvmArgsAppend -Dbench.hub.jvmArgs=-XX:+UseTransparentHugePages,-Xss1m}).
 */
@SuppressWarnings("try") // close() waits for the child process, so it may be interrupted
public final class ChildHub implements AutoCloseable {
    private final Process process;
    private final BufferedReader out;
    private final PrintWriter in;
    private final int port;
    private final io.traverse.identity.NodeId id;

    ChildHub(String name, long keepaliveMillis, String token, List<String> peers, String maxHeap) throws IOException {
        this(name, keepaliveMillis, token, peers, maxHeap, true);
    }

    /**
     * @param advertised false: the hub advertises no address, so only the hubs it dials link with
     *        it (hubs each dialling the previous one form a line, not a mesh)
     */
    public ChildHub(
            String name, long keepaliveMillis, String token, List<String> peers, String maxHeap, boolean advertised)
            throws IOException {
        List<String> command =
                new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"), "-Xmx" + maxHeap));
        String extra = System.getProperty("bench.hub.jvmArgs", "").trim();
        if (!extra.isEmpty()) {
            command.addAll(List.of(extra.split("[,\\s]+")));
        }
        command.addAll(List.of(
                "-cp",
                System.getProperty("java.class.path"),
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                StandaloneHub.class.getName(),
                name,
                Long.toString(keepaliveMillis),
                token,
                advertised ? StandaloneHub.ADVERTISED : StandaloneHub.DIAL_ONLY));
        command.addAll(peers);
        process = new ProcessBuilder(command)
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        in = new PrintWriter(process.getOutputStream(), true, StandardCharsets.UTF_8);
        String first = out.readLine();
        if (first == null || !first.startsWith("PORT ")) {
            process.destroyForcibly();
            throw new IOException("child hub " + name + " did not start: " + first);
        }
        String[] words = first.trim().split(" ");
        port = Integer.parseInt(words[1]);
        id = io.traverse.identity.NodeId.of(words[3]);
    }

    public int port() {
        return port;
    }

    /** The child hub's id (its key's, new at every start). */
    public io.traverse.identity.NodeId id() {
        return id;
    }

    long pid() {
        return process.pid();
    }

    /** {heap bytes in use after GC, JVM threads, nodes connected}. */
    long[] heapThreadsNodes() throws IOException {
        in.println("HEAP");
        String line = out.readLine();
        if (line == null) {
            throw new IOException("child hub died");
        }
        String[] f = line.split(" ");
        return new long[] {Long.parseLong(f[1]), Long.parseLong(f[3]), Long.parseLong(f[5])};
    }

    /** SIGSTOP: the process stays, its sockets stay open, nothing more comes out of them. */
    void freeze() throws IOException, InterruptedException {
        signal("STOP");
    }

    private void signal(String name) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid()))
                .inheritIO()
                .start();
        if (kill.waitFor() != 0) {
            throw new IOException("kill -" + name + " failed");
        }
    }

    /** The hub's link address on loopback, as {@code 127.0.0.1:port}. */
    public String address() {
        return "127.0.0.1:" + port;
    }

    @Override
    public void close() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }
}
