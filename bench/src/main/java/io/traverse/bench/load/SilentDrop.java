package io.traverse.bench.load;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Makes one process's TCP connections to the hub fall silent, as a machine whose network goes away
 * without a FIN or a reset: an nftables table of its own ({@code inet traverse_load_PID}) drops,
 * on loopback only, every packet between the hub's port and the process's local ports of its
 * connections to it. Needs root and {@code nft}. Closing removes the table; so does a shutdown
 * hook, should this JVM end first.
 */
final class SilentDrop implements AutoCloseable {
    private final String table;
    private final Thread hook;
    private final Set<Integer> ports;

    private SilentDrop(String table, Set<Integer> ports) {
        this.table = table;
        this.ports = ports;
        this.hook = new Thread(this::removeTable, "remove-" + table);
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /** Drops from now on every packet of {@code pid}'s connections to 127.0.0.1:{@code hubPort}. */
    static SilentDrop of(long pid, int hubPort) throws IOException, InterruptedException {
        Set<Integer> ports = localPortsTo(pid, hubPort);
        if (ports.isEmpty()) {
            throw new IOException("process " + pid + " has no connection to port " + hubPort);
        }
        String table = "traverse_load_" + ProcessHandle.current().pid();
        String set = ports.stream().map(String::valueOf).collect(Collectors.joining(", "));
        String rules = "table inet " + table + " {\n"
                + "  chain input {\n"
                + "    type filter hook input priority -10; policy accept;\n"
                + "    iifname \"lo\" tcp sport { " + set + " } tcp dport " + hubPort + " drop\n"
                + "    iifname \"lo\" tcp sport " + hubPort + " tcp dport { " + set + " } drop\n"
                + "  }\n"
                + "}\n";
        SilentDrop drop = new SilentDrop(table, ports);
        run(List.of("nft", "-f", "-"), rules);
        return drop;
    }

    Set<Integer> ports() {
        return ports;
    }

    /** Local ports of {@code pid}'s TCP connections whose remote end is port {@code remotePort} (from /proc). */
    static Set<Integer> localPortsTo(long pid, int remotePort) throws IOException {
        Set<String> inodes = new HashSet<>();
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(Path.of("/proc", Long.toString(pid), "fd"))) {
            for (Path fd : fds) {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith("socket:[")) {
                        inodes.add(target.substring(8, target.length() - 1));
                    }
                } catch (IOException closedMeanwhile) {
                    // the descriptor went away while listed
                }
            }
        }
        Set<Integer> ports = new TreeSet<>();
        for (String file : List.of("tcp", "tcp6")) {
            Path table = Path.of("/proc", Long.toString(pid), "net", file);
            if (!Files.exists(table)) {
                continue;
            }
            for (String line : Files.readAllLines(table)
                    .subList(1, Files.readAllLines(table).size())) {
                String[] f = line.trim().split("\\s+");
                int local = Integer.parseInt(f[1].substring(f[1].lastIndexOf(':') + 1), 16);
                int remote = Integer.parseInt(f[2].substring(f[2].lastIndexOf(':') + 1), 16);
                if (remote == remotePort && inodes.contains(f[9])) {
                    ports.add(local);
                }
            }
        }
        return ports;
    }

    private static void run(List<String> command, String input) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(new ArrayList<>(command))
                .redirectErrorStream(true)
                .start();
        p.getOutputStream().write(input.getBytes(StandardCharsets.UTF_8));
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + " failed (root and nftables needed): " + out.trim());
        }
    }

    private void removeTable() {
        try {
            run(List.of("nft", "delete", "table", "inet", table), "");
        } catch (IOException | InterruptedException e) {
            // already gone, or nothing we can do while exiting
        }
    }

    @Override
    public void close() {
        removeTable();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // shutting down: the hook runs anyway
        }
    }
}
