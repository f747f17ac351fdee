package io.traverse.bench;

import io.traverse.Traverse;
import io.traverse.TraverseConfig;
import io.traverse.TraverseSocketFactory;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Connection setup as a user of the drop-in factories gets it: connect plus the
 * server's first byte, timed one by one, against a server in another process (a
 * {@link DropInServer}). Three contenders, interleaved round by round in an order that rotates:
 * <ul>
 *   <li>{@code plain}: {@code new Socket("127.0.0.1", port)};</li>
 *   <li>{@code default}: {@code new TraverseSocketFactory().createSocket(host, port)} with the host
 *       string of the server's virtual address; both ends are default nodes with the default
 *       configuration (every interface), the headline figure;</li>
 *   <li>{@code single}: a client node bound to 127.0.0.1 to a server node bound to 127.0.0.1, the
 *       figure {@link ConnectSetup} measures;</li>
 *   <li>{@code tls}: as {@code default} from a client node with {@code traverse.encrypt=all}, so the
 *       connection runs TLS 1.3 (resumed after the first) and the server's first byte comes
 *       through it.</li>
 * </ul>
 * Every contender first makes {@code --warmup} connections (4,000), so both JVMs have compiled
 * the path. Client sockets are closed with {@code SO_LINGER 0} after the timing (no TIME_WAIT
 * pile-up), for every contender. Meant to run pinned to one core ({@code bench/run-dropin.sh});
 * the server process inherits the affinity.
 *
 * <pre>
 * options: --rounds N (7)  --warmup N (4000)  --connects N (2000 per contender and round)  --only plain,default,single,handshake,tls
 * </pre>
 */
public final class DropInSetupRounds {
    private static final java.lang.management.ThreadMXBean THREADS =
            java.lang.management.ManagementFactory.getThreadMXBean();

    private record Endpoint(String host, int port) {}

    private interface Contender {
        Socket connect() throws IOException;
    }

    private DropInSetupRounds() {}

    public static void main(String[] args) throws Exception {
        int rounds = 7;
        int warmup = 4000;
        int connects = 2000;
        List<String> names = List.of("plain", "default", "single", "handshake", "tls");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--rounds" -> rounds = JmhRuns.atLeast(args[i], args, ++i, 1);
                case "--warmup" -> warmup = JmhRuns.atLeast(args[i], args, ++i, 0);
                case "--connects" -> connects = JmhRuns.atLeast(args[i], args, ++i, 1);
                case "--only" ->
                    names = List.of(JmhRuns.value(args[i], args, ++i).split(","));
                case "-h", "--help" -> {
                    System.out.println("usage: DropInSetupRounds [--rounds N] [--warmup N] [--connects N]"
                            + " [--only plain,default,single,handshake,tls]");
                    return;
                }
                default -> throw new IllegalArgumentException("unknown option " + args[i] + " (try --help)");
            }
        }
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command =
                new ArrayList<>(List.of(java, "-Xms256m", "-Xmx256m", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"));
        String serverOptions = System.getProperty("dropin.server.options", "").trim(); // e.g. a JFR recording
        if (!serverOptions.isEmpty()) {
            command.addAll(List.of(serverOptions.split("\\s+")));
        }
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), DropInServer.class.getName()));
        Process server = new ProcessBuilder(command)
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        try {
            Map<String, Endpoint> endpoints = readEndpoints(server);
            run(rounds, warmup, connects, names, endpoints, server.pid());
        } finally {
            try (OutputStream lifeline = server.getOutputStream()) {
                lifeline.flush();
            }
            if (!server.waitFor(10, TimeUnit.SECONDS)) {
                server.destroyForcibly();
            }
        }
    }

    private static Map<String, Endpoint> readEndpoints(Process server) throws IOException {
        BufferedReader in =
                new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.US_ASCII));
        Map<String, Endpoint> out = new HashMap<>();
        for (String line = in.readLine(); line != null && !line.equals("ready"); line = in.readLine()) {
            String[] f = line.trim().split(" ");
            if (f.length == 3
                    && List.of("plain", "default", "single", "handshake")
                            .contains(f[0])) { // not the JVM's own messages
                out.put(f[0], new Endpoint(f[1], Integer.parseInt(f[2])));
            }
        }
        if (out.size() != 4) {
            throw new IOException("the server process did not report its four listeners: " + out);
        }
        return out;
    }

    private static void run(
            int rounds, int warmup, int connects, List<String> names, Map<String, Endpoint> endpoints, long serverPid)
            throws IOException {
        Traverse singleNode =
                Traverse.start(TraverseConfig.builder().bind("127.0.0.1").build());
        Map<String, Contender> all = new HashMap<>();
        Endpoint p = endpoints.get("plain");
        all.put("plain", () -> new Socket(p.host, p.port));
        Endpoint d = endpoints.get("default");
        all.put("default", () -> new TraverseSocketFactory().createSocket(d.host, d.port));
        Traverse tlsNode = Traverse.start(
                TraverseConfig.builder().set("traverse.encrypt", "all").build());
        all.put("tls", () -> tlsNode.socketFactory().createSocket(d.host, d.port));
        Endpoint s = endpoints.get("single");
        all.put("single", () -> singleNode.socketFactory().createSocket(s.host, s.port));
        Endpoint h = endpoints.get("handshake");
        byte[] request = new byte[DropInServer.HANDSHAKE_REQUEST];
        all.put("handshake", () -> {
            Socket socket = new Socket(h.host, h.port);
            socket.getOutputStream().write(request);
            new java.io.DataInputStream(socket.getInputStream()).readFully(new byte[DropInServer.HANDSHAKE_REPLY]);
            return socket;
        });
        List<Contender> contenders = new ArrayList<>();
        for (String n : names) {
            if (!all.containsKey(n)) {
                throw new IllegalArgumentException("unknown contender " + n);
            }
            contenders.add(all.get(n));
        }
        System.out.printf(
                Locale.ROOT,
                "DropInSetupRounds: %d rounds x %s, %d timed connects each, after %d warm-up connects;"
                        + " CPUs visible: %d%n",
                rounds,
                names,
                connects,
                warmup,
                Runtime.getRuntime().availableProcessors());
        System.out.println("default node's server address: " + d.host + " port " + d.port);
        for (Contender c : contenders) {
            time(c, warmup);
        }
        long[] buffer = new long[connects];
        double[][] medians = new double[names.size()][rounds];
        double[][] p90s = new double[names.size()][rounds];
        List<Map<String, ThreadWakeups.Counts>> clientSwitches = new ArrayList<>();
        List<Map<String, ThreadWakeups.Counts>> serverSwitches = new ArrayList<>();
        for (int k = 0; k < names.size(); k++) {
            clientSwitches.add(new java.util.TreeMap<>());
            serverSwitches.add(new java.util.TreeMap<>());
        }
        long self = ProcessHandle.current().pid();
        long[] callerCpuNanos = new long[names.size()];
        for (int r = 0; r < rounds; r++) {
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "round %d/%d ", r + 1, rounds));
            for (int k = 0; k < names.size(); k++) {
                int ci = (k + r) % names.size(); // rotate the order so drift hits every contender alike
                Map<String, ThreadWakeups.Counts> clientBefore = ThreadWakeups.snapshot(self);
                Map<String, ThreadWakeups.Counts> serverBefore = ThreadWakeups.snapshot(serverPid);
                long cpuBefore = THREADS.getCurrentThreadCpuTime();
                long[] t = time(contenders.get(ci), connects, buffer);
                callerCpuNanos[ci] += THREADS.getCurrentThreadCpuTime() - cpuBefore;
                ThreadWakeups.add(
                        clientSwitches.get(ci), ThreadWakeups.between(clientBefore, ThreadWakeups.snapshot(self)));
                ThreadWakeups.add(
                        serverSwitches.get(ci), ThreadWakeups.between(serverBefore, ThreadWakeups.snapshot(serverPid)));
                Arrays.sort(t);
                medians[ci][r] = t[t.length / 2] / 1e3;
                p90s[ci][r] = t[(int) (t.length * 0.9)] / 1e3;
            }
            for (int ci = 0; ci < names.size(); ci++) {
                line.append(String.format(
                        Locale.ROOT, " %s %.1f us (p90 %.1f)", names.get(ci), medians[ci][r], p90s[ci][r]));
            }
            System.out.println(line);
        }
        System.out.println();
        System.out.println(
                "connect + first byte, us: median of the per-round medians [min-max]; ratio to plain: median of the"
                        + " per-round ratios [min-max]");
        int plainIndex = names.indexOf("plain");
        for (int ci = 0; ci < names.size(); ci++) {
            double[] m = medians[ci];
            String ratio = "";
            if (plainIndex >= 0 && ci != plainIndex) {
                double[] ratios = new double[rounds];
                for (int r = 0; r < rounds; r++) {
                    ratios[r] = m[r] / medians[plainIndex][r];
                }
                ratio = String.format(
                        Locale.ROOT,
                        "   ratio %.2fx [%.2f-%.2f]",
                        JmhRuns.median(ratios),
                        JmhRuns.min(ratios),
                        JmhRuns.max(ratios));
            }
            System.out.printf(
                    Locale.ROOT,
                    "%-8s %8.1f [%.1f-%.1f]%s%n",
                    names.get(ci),
                    JmhRuns.median(m),
                    JmhRuns.min(m),
                    JmhRuns.max(m),
                    ratio);
        }
        System.out.println();
        System.out.println(
                "context switches per connect, by thread (woken: blocked and woken again; preempted: descheduled)");
        for (int ci = 0; ci < names.size(); ci++) {
            System.out.printf(
                    Locale.ROOT,
                    "%s, client process (the calling thread's CPU: %.1f us per connect):%n",
                    names.get(ci),
                    callerCpuNanos[ci] / 1e3 / ((long) rounds * connects));
            System.out.print(ThreadWakeups.perConnection(clientSwitches.get(ci), (long) rounds * connects));
            System.out.println(names.get(ci) + ", server process:");
            System.out.print(ThreadWakeups.perConnection(serverSwitches.get(ci), (long) rounds * connects));
        }
        singleNode.close();
        tlsNode.close();
    }

    private static void time(Contender c, int n) throws IOException {
        time(c, n, new long[Math.max(n, 1)]);
    }

    private static long[] time(Contender c, int n, long[] out) throws IOException {
        long[] t = n == out.length ? out : new long[n];
        for (int i = 0; i < n; i++) {
            long start = System.nanoTime();
            Socket s = c.connect();
            int b = s.getInputStream().read();
            t[i] = System.nanoTime() - start;
            s.setSoLinger(true, 0);
            s.close();
            if (b != 1) {
                throw new IOException("expected the server's first byte, got " + b);
            }
        }
        return t;
    }
}
