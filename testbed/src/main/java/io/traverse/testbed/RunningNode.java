package io.traverse.testbed;

import io.traverse.VirtualSocketAddress;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link NodeAgent} running in a child JVM inside a host's namespace, and the handle that
 * drives it: its virtual address, {@link #connect} commands with their parsed results, and the
 * last lines of its log for error messages. {@link #close()} asks the agent to quit and kills it
 * if it does not; the testbed closes every node it still runs.
 *
 * <pre>{@code
 * RunningNode b = RunningNode.start(hostB, NodeSettings.create().bind(hostB.address()).portRange("7000"));
 * TransferResult r = a.connect(b.address(), 4 << 20, Duration.ofSeconds(5));
 * }</pre>
 */
public final class RunningNode implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(RunningNode.class);
    private static final String END_OF_OUTPUT = "\u0000end";
    private static final int LOG_TAIL_LINES = 300;

    private final Host host;
    private final Process process;
    private final int echoPort;
    private final Writer commands;
    private final BlockingQueue<String> replies = new LinkedBlockingQueue<>();
    private final Deque<String> logTail = new ArrayDeque<>();
    private volatile VirtualSocketAddress address;
    private Thread logReader;
    private boolean broken;
    private final AtomicBoolean closed = new AtomicBoolean();

    private RunningNode(Host host, Process process, int echoPort) {
        this.host = host;
        this.process = process;
        this.echoPort = echoPort;
        this.commands = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    }

    /**
     * Starts a node agent on {@code host} and waits until it prints its address.
     *
     * @throws TestbedException if the agent exits or stays silent; the message ends with its log
     */
    public static RunningNode start(Host host, NodeSettings settings) {
        List<String> argv = agentCommand(settings);
        argv.add("--service-port");
        argv.add(Integer.toString(settings.servicePort()));
        if (settings.serviceName() != null) {
            argv.add("--service-name");
            argv.add(settings.serviceName());
        }
        if (settings.rmiName() != null) {
            argv.add("--rmi-name");
            argv.add(settings.rmiName());
        }
        argv.add("--echo-port");
        argv.add(Integer.toString(settings.echoPort()));
        if (settings.plainServicePort() > 0) {
            argv.add("--plain-ports");
            argv.add(Integer.toString(settings.plainServicePort()));
            argv.add(Integer.toString(settings.plainEchoPort()));
        }
        Process process = host.namespace().start(new ProcessBuilder(argv));
        RunningNode node = new RunningNode(host, process, settings.echoPort());
        host.namespace().testbed().track(node);
        node.startReaders();
        try {
            String first = node.awaitReply(settings.startTimeout(), "its address");
            if (!first.startsWith("address ")) {
                node.awaitExit();
                throw node.failure("did not start: " + first);
            }
            node.address = VirtualSocketAddress.parse(first.substring("address ".length()));
            log.debug("Node on {} is {}", host, node.address);
            return node;
        } catch (RuntimeException e) {
            node.close();
            throw e;
        }
    }

    /**
     * A first connection from a cold JVM: starts a fresh node agent on {@code host} that connects to
     * {@code target} the moment its node is up (without waiting for its hub link), sends {@code bytes}
     * random bytes, half-closes, verifies the reply and exits. Failures to connect or verify are a
     * {@link TransferResult} with {@code ok == false}; only an agent that gives no result throws.
     * The result's times are the node's own; JVM start-up comes before them.
     */
    public static TransferResult coldConnect(
            Host host, NodeSettings settings, VirtualSocketAddress target, long bytes, Duration timeout) {
        return coldConnect(host, settings, target, bytes, timeout, log -> {});
    }

    /** As {@link #coldConnect(Host, NodeSettings, VirtualSocketAddress, long, Duration)}, and hands the agent's last log lines to {@code agentLog}. */
    public static TransferResult coldConnect(
            Host host,
            NodeSettings settings,
            VirtualSocketAddress target,
            long bytes,
            Duration timeout,
            java.util.function.Consumer<String> agentLog) {
        return coldConnect(host, settings, target.toString(), bytes, timeout, agentLog);
    }

    /**
     * As {@link #coldConnect(Host, NodeSettings, VirtualSocketAddress, long, Duration, java.util.function.Consumer)}
     * by host name ({@code NAME:PORT}, unresolved, as an application passes it): a name registered at
     * the hub network or one DNS knows. The served node's id is not checked; the result names it.
     */
    public static TransferResult coldConnectByName(
            Host host,
            NodeSettings settings,
            String nameAndPort,
            long bytes,
            Duration timeout,
            java.util.function.Consumer<String> agentLog) {
        return coldConnect(host, settings, nameAndPort, bytes, timeout, agentLog);
    }

    private static TransferResult coldConnect(
            Host host,
            NodeSettings settings,
            String target,
            long bytes,
            Duration timeout,
            java.util.function.Consumer<String> agentLog) {
        Duration wait = settings.startTimeout().plus(timeout).plusSeconds(10 + bytes / (1 << 20));
        return TransferResult.parse(oneShot(
                host,
                settings,
                List.of("--connect-at-start", target, Long.toString(bytes), Long.toString(timeout.toMillis())),
                wait,
                "result ",
                "the result of its connect",
                agentLog));
    }

    /**
     * Java RMI from a cold JVM ({@link RmiChecksums#call}): starts a node agent on {@code host} that
     * looks up the object a node exported under {@code name} ({@link NodeSettings#rmiName}), at once,
     * through its default node; uploads {@code up} bytes, downloads {@code down}, makes {@code calls}
     * small calls, all checked. Returns the agent's line: {@code rmi ok lookup-ms=… elapsed-ms=…} or
     * {@code rmi failed …}.
     */
    public static String coldRmiCall(
            Host host, NodeSettings settings, String name, int up, int down, int calls, Duration timeout) {
        StringBuilder agentLog = new StringBuilder();
        String reply = oneShot(
                host,
                settings,
                List.of(
                        "--rmi-call-at-start",
                        name,
                        Integer.toString(up),
                        Integer.toString(down),
                        Integer.toString(calls)),
                settings.startTimeout().plus(timeout),
                "rmi ",
                "the result of its RMI calls",
                agentLog::append);
        return reply.startsWith("rmi failed") ? reply + "\n" + agentLog : reply;
    }

    /**
     * Runs a node agent in a one-shot mode ({@code mode}: its arguments) and returns its one reply,
     * which must start with {@code prefix}; hands the agent's last log lines to {@code agentLog}.
     */
    private static String oneShot(
            Host host,
            NodeSettings settings,
            List<String> mode,
            Duration wait,
            String prefix,
            String what,
            java.util.function.Consumer<String> agentLog) {
        List<String> argv = agentCommand(settings);
        argv.addAll(mode);
        Process process = host.namespace().start(new ProcessBuilder(argv));
        RunningNode node = new RunningNode(host, process, settings.echoPort());
        host.namespace().testbed().track(node);
        node.startReaders();
        try {
            String reply = node.awaitReply(wait, what);
            if (!reply.startsWith(prefix)) {
                node.awaitExit();
                throw node.failure("answered '" + reply + "' instead of " + what);
            }
            return reply;
        } finally {
            node.close();
            agentLog.accept(node.recentLog());
        }
    }

    /** The command line of a node agent with {@code settings}, without its mode arguments. */
    private static List<String> agentCommand(NodeSettings settings) {
        List<String> argv = new ArrayList<>();
        argv.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        argv.addAll(settings.jvmOptions());
        for (Map.Entry<String, String> e : settings.traverseSettings().entrySet()) {
            argv.add("-D" + e.getKey() + "=" + e.getValue());
        }
        argv.add("-Dorg.slf4j.simpleLogger.logFile=System.err");
        argv.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=" + settings.logLevel());
        argv.add("-Dorg.slf4j.simpleLogger.showDateTime=true");
        argv.add("-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS");
        argv.add("-cp");
        argv.add(settings.classPath());
        argv.add(NodeAgent.class.getName());
        return argv;
    }

    public Host host() {
        return host;
    }

    /** The agent's verification service: connect here to reach this node. */
    public VirtualSocketAddress address() {
        return address;
    }

    /** The agent's one-byte echo: connect here to time round trips to this node. */
    public VirtualSocketAddress echoAddress() {
        return new VirtualSocketAddress(address.node(), echoPort);
    }

    /** The node id, as the verification service reports it in {@link TransferResult#servedBy()}. */
    public String nodeId() {
        return address.node().id().map(Object::toString).orElseThrow();
    }

    /**
     * Connects from this node to {@code target} with {@code timeout}, sends {@code bytes} random bytes,
     * half-closes and verifies the reply. Failures to connect or verify are a {@link TransferResult}
     * with {@code ok == false}; only a broken agent throws.
     */
    public synchronized TransferResult connect(VirtualSocketAddress target, long bytes, Duration timeout) {
        return connect(target.toString(), bytes, timeout);
    }

    /**
     * As {@link #connect(VirtualSocketAddress, long, Duration)} by host name ({@code NAME:PORT},
     * unresolved, as an application passes it): a name registered at the hub network or one DNS
     * knows. The served node's id is not checked; the result names it.
     */
    public synchronized TransferResult connectByName(String nameAndPort, long bytes, Duration timeout) {
        return connect(nameAndPort, bytes, timeout);
    }

    private TransferResult connect(String target, long bytes, Duration timeout) {
        // Connect timeout, plus time for the data at a very slow 1 MiB/s, plus a margin for the JVM.
        Duration wait = timeout.plusSeconds(10 + bytes / (1 << 20));
        String reply =
                command("connect " + target + " " + bytes + " " + timeout.toMillis(), wait, "the result of a connect");
        if (!reply.startsWith("result ")) {
            throw failure("answered '" + reply + "' to connect");
        }
        return TransferResult.parse(reply);
    }

    /**
     * Connects from this node to the echo at {@code target} and times {@code rounds} one-byte round
     * trips (after as many to warm up). A failure is a result with {@code ok == false}.
     */
    public synchronized RoundTripResult roundTrips(VirtualSocketAddress target, int rounds, Duration timeout) {
        return roundTripCommand("rtt " + target, rounds, timeout);
    }

    /** Like {@link #roundTrips}, over a plain {@code java.net.Socket} to a plain echo port ({@link NodeSettings#plainPorts}). */
    public synchronized RoundTripResult plainRoundTrips(InetSocketAddress target, int rounds, Duration timeout) {
        return roundTripCommand("plain-rtt " + hostPort(target), rounds, timeout);
    }

    /**
     * Like {@link #connect}, over a plain {@code java.net.Socket} to a plain verification port
     * ({@link NodeSettings#plainPorts}); the result's module is {@code plain}.
     */
    public synchronized TransferResult plainConnect(InetSocketAddress target, long bytes, Duration timeout) {
        Duration wait = timeout.plusSeconds(10 + bytes / (1 << 20));
        String reply = command(
                "plain-connect " + hostPort(target) + " " + bytes + " " + timeout.toMillis(),
                wait,
                "the result of a plain connect");
        if (!reply.startsWith("result ")) {
            throw failure("answered '" + reply + "' to plain-connect");
        }
        return TransferResult.parse(reply);
    }

    private RoundTripResult roundTripCommand(String commandAndTarget, int rounds, Duration timeout) {
        // Connect timeout, plus a generous 10 ms for each of the 2 x rounds trips.
        Duration wait = timeout.plusSeconds(10).plusMillis(20L * rounds);
        String reply =
                command(commandAndTarget + " " + rounds + " " + timeout.toMillis(), wait, "the result of round trips");
        if (!reply.startsWith("rtt ")) {
            throw failure("answered '" + reply + "' to " + commandAndTarget);
        }
        return RoundTripResult.parse(reply);
    }

    private static String hostPort(InetSocketAddress address) {
        return address.getAddress().getHostAddress() + ":" + address.getPort();
    }

    /**
     * Waits until this node's hub knows at least {@code nodes} nodes and {@code hubs} hubs; returns
     * the agent's answer ({@code network ok nodes=N hubs=M} or {@code network incomplete ...}).
     */
    public synchronized String awaitNetwork(int nodes, int hubs, Duration timeout) {
        String reply = command(
                "await-network " + nodes + " " + hubs + " " + timeout.toMillis(),
                timeout.plusSeconds(15),
                "the hub network's size");
        if (!reply.startsWith("network ")) {
            throw failure("answered '" + reply + "' to await-network");
        }
        return reply;
    }

    /** The node's identity now (it changes when, e.g., a mapped port is advertised). */
    public synchronized io.traverse.identity.NodeIdentity identity() {
        String reply = command("identity", Duration.ofSeconds(10), "its identity");
        if (!reply.startsWith("identity ")) {
            throw failure("answered '" + reply + "' to identity");
        }
        return io.traverse.identity.NodeIdentity.parse(reply.substring("identity ".length()));
    }

    /**
     * Ends the node's JVM with SIGTERM, as a service manager stops it (its shutdown hooks run),
     * and waits for it to exit; returns its exit code.
     */
    public int terminate(Duration wait) {
        if (!closed.compareAndSet(false, true)) {
            throw new TestbedException("node on " + host + " is closed already");
        }
        process.destroy(); // SIGTERM; `ip netns exec` has exec'd the JVM, so the signal reaches it
        try {
            if (!process.waitFor(wait.toMillis(), TimeUnit.MILLISECONDS)) {
                NetworkNamespace.stop(process);
                throw failure("did not exit within " + wait.toMillis() + " ms of SIGTERM");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            NetworkNamespace.stop(process);
            throw new TestbedException("interrupted while waiting for the node on " + host + " to exit", e);
        }
        return process.exitValue();
    }

    /** How many verification connections this node's service has completed. */
    public synchronized long servedConnections() {
        String reply = command("status", Duration.ofSeconds(10), "its status");
        int at = reply.indexOf("served=");
        if (!reply.startsWith("status ") || at < 0) {
            throw failure("answered '" + reply + "' to status");
        }
        return Long.parseLong(reply.substring(at + "served=".length()).split(" ")[0]);
    }

    /** The last lines the agent logged, oldest first. */
    public String recentLog() {
        synchronized (logTail) {
            return String.join("\n", logTail);
        }
    }

    /** Asks the agent to quit, waits a moment, then kills it. */
    @Override
    public void close() {
        // Not synchronized: it must be able to stop an agent in the middle of a command.
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        if (process.isAlive()) {
            try {
                commands.write("quit\n");
                commands.flush();
                commands.close();
                process.waitFor(3, TimeUnit.SECONDS);
            } catch (IOException e) {
                // already gone
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        NetworkNamespace.stop(process);
    }

    private String command(String line, Duration wait, String what) {
        if (closed.get()) {
            throw new TestbedException("node on " + host + " is closed");
        }
        if (broken) {
            throw failure("is out of step after an earlier failure");
        }
        try {
            commands.write(line + "\n");
            commands.flush();
        } catch (IOException e) {
            broken = true;
            throw failure("cannot take commands: " + e.getMessage());
        }
        return awaitReply(wait, what);
    }

    private String awaitReply(Duration wait, String what) {
        String reply;
        try {
            reply = replies.poll(wait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            broken = true;
            throw new TestbedException("interrupted while waiting for the node on " + host, e);
        }
        if (reply == null) {
            broken = true;
            throw failure("gave no " + what + " within " + wait.toMillis() + " ms");
        }
        if (reply.equals(END_OF_OUTPUT)) {
            broken = true;
            replies.add(END_OF_OUTPUT); // for later callers
            String code = awaitExit();
            throw failure("exited" + code + " before giving " + what);
        }
        return reply;
    }

    /** Waits briefly for a failing agent to exit and for its last log lines; returns " with code N" or "". */
    private String awaitExit() {
        try {
            if (process.waitFor(2, TimeUnit.SECONDS)) {
                logReader.join(1_000);
                return " with code " + process.exitValue();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return "";
    }

    private TestbedException failure(String what) {
        String tail = recentLog();
        return new TestbedException("node agent on " + host + " " + what
                + (tail.isEmpty() ? "" : "\n--- its log (last lines) ---\n" + tail));
    }

    private void startReaders() {
        Thread out = new Thread(
                () -> {
                    try (BufferedReader reader = new BufferedReader(
                            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                        String line;
                        while ((line = reader.readLine()) != null) {
                            replies.add(line);
                        }
                    } catch (IOException e) {
                        // the process is gone
                    } finally {
                        replies.add(END_OF_OUTPUT);
                    }
                },
                "node-" + host.label() + "-stdout");
        logReader = new Thread(
                () -> {
                    try (BufferedReader reader = new BufferedReader(
                            new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8))) {
                        String line;
                        while ((line = reader.readLine()) != null) {
                            log.debug("[{}] {}", host.label(), line);
                            synchronized (logTail) {
                                logTail.addLast(line);
                                if (logTail.size() > LOG_TAIL_LINES) {
                                    logTail.removeFirst();
                                }
                            }
                        }
                    } catch (IOException e) {
                        // the process is gone
                    }
                },
                "node-" + host.label() + "-stderr");
        out.setDaemon(true);
        logReader.setDaemon(true);
        out.start();
        logReader.start();
    }

    @Override
    public String toString() {
        return "RunningNode[" + host + (address == null ? "" : " " + nodeId()) + "]";
    }
}
