package io.traverse.testbed;

import io.traverse.ConnectionInfo;
import io.traverse.Traverse;
import io.traverse.TraverseConfig;
import io.traverse.TraverseServerSocket;
import io.traverse.VirtualSocketAddress;
import io.traverse.config.ConfigSources;
import io.traverse.identity.NodeIdentity;
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Traverse node in its own JVM, driven line by line, for running nodes inside testbed
 * namespaces ({@link RunningNode} starts it with {@code ip netns exec NS java ... NodeAgent}).
 *
 * <p>It configures its node like any application ({@code -Dtraverse.*} system properties,
 * {@code TRAVERSE_*} environment, then {@code key=value} arguments, which win), opens the
 * {@link DigestEcho} verification service on a virtual port and a one-byte echo on another
 * (optionally both also on plain TCP ports, for comparing with plain sockets on the same hosts),
 * prints {@code address <VIRTUAL-ADDRESS>} on stdout and then obeys commands on stdin, one reply
 * line each:
 * <ul>
 *   <li>{@code connect <VIRTUAL-ADDRESS> <BYTES> <TIMEOUT-MS>} — connects through the node's
 *       {@code TraverseSocketFactory}, sends BYTES random bytes, half-closes, checks the reply's
 *       length, SHA-256 and node id; answers a {@link TransferResult} line. {@code NAME:PORT}
 *       instead of a virtual address connects by name, as an application does (a name registered
 *       at the hub network, else DNS's), and checks all but the node id;</li>
 *   <li>{@code rtt <VIRTUAL-ADDRESS> <ROUNDS> <TIMEOUT-MS>} — connects to an echo service,
 *       times ROUNDS one-byte round trips after as many to warm up; answers a
 *       {@link RoundTripResult} line;</li>
 *   <li>{@code plain-connect <HOST:PORT> <BYTES> <TIMEOUT-MS>} and {@code plain-rtt <HOST:PORT>
 *       <ROUNDS> <TIMEOUT-MS>} — the same with a plain {@code java.net.Socket} to a plain
 *       verification or echo port (module {@code plain});</li>
 *   <li>{@code await-network <NODES> <HUBS> <TIMEOUT-MS>} — waits until its hub knows at least
 *       NODES nodes and HUBS hubs (gossip has settled); answers {@code network ok nodes=N hubs=M}
 *       or {@code network incomplete nodes=N hubs=M};</li>
 *   <li>{@code status} — {@code status accepted=N served=M} for the verification service;</li>
 *   <li>{@code quit} (or end of stdin) — closes the node and exits.</li>
 * </ul>
 * With {@code --rmi-name NAME} it also exports {@link RmiChecksums}' object in an RMI registry under
 * that name. With {@code --rmi-call-at-start NAME UP DOWN CALLS} it is a one-shot cold RMI client
 * ({@link RmiChecksums#call}) that prints {@code rmi ok …} or {@code rmi failed …} and exits.
 * With {@code --connect-at-start <VIRTUAL-ADDRESS> <BYTES> <TIMEOUT-MS>} it is a one-shot cold
 * client instead: it starts its node, connects at once — without waiting for its hub link, as an
 * application's first connection in a fresh JVM does — prints the {@link TransferResult} line,
 * closes the node and exits (0 if the transfer was verified, 1 if not).
 * Stdout carries nothing else; logs go to stderr. Usage:
 * {@code NodeAgent [--service-port N] [--service-name NAME] [--echo-port N] [--plain-ports DIGEST-PORT ECHO-PORT]
 * [--connect-at-start ADDRESS BYTES TIMEOUT-MS] [traverse.KEY=VALUE ...]}.
 */
public final class NodeAgent {
    private final Traverse node;
    private final PrintStream replies;
    private final String nodeId;
    private final AtomicLong accepted = new AtomicLong();
    private final AtomicLong served = new AtomicLong();
    private final ExecutorService connections = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "agent-service");
        t.setDaemon(true);
        return t;
    });

    private NodeAgent(Traverse node, PrintStream replies) {
        this.node = node;
        this.replies = replies;
        this.nodeId = node.identity().id().map(Object::toString).orElse("-");
    }

    public static void main(String[] args) {
        // Stdout is the command channel: keep everything else off it.
        PrintStream replies = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        System.setOut(System.err);
        if (System.getProperty("org.slf4j.simpleLogger.logFile") == null) {
            System.setProperty("org.slf4j.simpleLogger.logFile", "System.err");
        }
        int status;
        try {
            status = run(args, replies);
        } catch (Exception | Error e) {
            replies.println("error " + oneLine(e.toString()));
            log().error("Node agent failed", e);
            status = 2;
        }
        replies.flush();
        System.exit(status);
    }

    private static int run(String[] args, PrintStream replies) throws IOException, InterruptedException {
        int servicePort = 7;
        String serviceName = null;
        String rmiName = null;
        String[] rmiCall = null;
        int echoPort = 8;
        int plainServicePort = -1;
        int plainEchoPort = -1;
        String[] coldConnect = null;
        TraverseConfig.Builder config = TraverseConfig.builderFrom(ConfigSources.collect());
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (arg.equals("--service-port") && i + 1 < args.length) {
                servicePort = Integer.parseInt(args[++i]);
            } else if (arg.equals("--service-name") && i + 1 < args.length) {
                serviceName = args[++i];
            } else if (arg.equals("--rmi-name") && i + 1 < args.length) {
                rmiName = args[++i];
            } else if (arg.equals("--rmi-call-at-start") && i + 4 < args.length) {
                rmiCall = Arrays.copyOfRange(args, i + 1, i + 5);
                i += 4;
            } else if (arg.equals("--echo-port") && i + 1 < args.length) {
                echoPort = Integer.parseInt(args[++i]);
            } else if (arg.equals("--plain-ports") && i + 2 < args.length) {
                plainServicePort = Integer.parseInt(args[++i]);
                plainEchoPort = Integer.parseInt(args[++i]);
            } else if (arg.equals("--connect-at-start") && i + 3 < args.length) {
                coldConnect = new String[] {args[i + 1], args[i + 2], args[i + 3]};
                i += 3;
            } else if (arg.startsWith("traverse.") && arg.contains("=")) {
                String key = arg.substring(0, arg.indexOf('='));
                config.set(key, arg.substring(arg.indexOf('=') + 1), "argument"); // an unknown key fails here
            } else {
                throw new IllegalArgumentException("unexpected argument '" + arg
                        + "'; usage: NodeAgent [--service-port N] [--service-name NAME] [--rmi-name NAME] [--echo-port N] [--plain-ports DIGEST-PORT ECHO-PORT]"
                        + " [--connect-at-start ADDRESS BYTES TIMEOUT-MS] [--rmi-call-at-start NAME UP DOWN CALLS]"
                        + " [traverse.KEY=VALUE ...]");
            }
        }
        if (rmiCall != null) {
            return rmiCallAtStart(
                    rmiCall[0],
                    Integer.parseInt(rmiCall[1]),
                    Integer.parseInt(rmiCall[2]),
                    Integer.parseInt(rmiCall[3]),
                    replies);
        }
        if (coldConnect != null) {
            return connectAtStart(
                    config.build(),
                    coldConnect[0],
                    Long.parseLong(coldConnect[1]),
                    Integer.parseInt(coldConnect[2]),
                    replies);
        }
        try (Traverse node = Traverse.start(config.build());
                TraverseServerSocket server = serviceName == null
                        ? node.serverSocketFactory().createServerSocket(servicePort)
                        : node.serverSocketFactory().createServerSocket(serviceName, servicePort);
                TraverseServerSocket echo = node.serverSocketFactory().createServerSocket(echoPort);
                ServerSocket plainService = plainServicePort < 0 ? null : new ServerSocket(plainServicePort);
                ServerSocket plainEcho = plainEchoPort < 0 ? null : new ServerSocket(plainEchoPort)) {
            NodeAgent agent = new NodeAgent(node, replies);
            agent.serve(server, agent::verify, true);
            agent.serve(echo, PathMeasurement::serveEcho, false);
            if (plainService != null) {
                agent.serve(plainService, agent::verify, false);
                agent.serve(plainEcho, PathMeasurement::serveEcho, false);
            }
            // Three hub timeouts: a cold JVM's first link attempts (TLS, on a machine where a dozen JVMs start at
            // once) may each run out of one, and the link tries again.
            java.time.Duration linkWait = node.config().hubTimeout().multipliedBy(3);
            if (!node.config().hubs().isEmpty() && !node.awaitHubLink(linkWait)) {
                // Said here rather than found out at the first connect: the test's setup is wrong.
                replies.println("no hub link within " + linkWait.toMillis() + " ms: " + node.hubLinkStatus());
                return 1;
            }
            if (rmiName != null) {
                RmiChecksums.export(node, rmiName);
            }
            replies.println("address " + server.getLocalSocketAddress());
            agent.obeyCommands();
            agent.connections.shutdownNow();
        }
        return 0;
    }

    /** The one-shot cold client: start, connect at once, report, stop. */
    private static int connectAtStart(
            TraverseConfig config, String address, long bytes, int timeoutMillis, PrintStream replies)
            throws IOException {
        try (Traverse node = Traverse.start(config)) {
            TransferResult result = connect(node, address, bytes, timeoutMillis);
            replies.println(result.line());
            return result.ok() ? 0 : 1;
        }
    }

    /**
     * The one-shot RMI client: looks up and calls at once, through the JVM's default node (started by
     * the client socket factory, configured by the {@code -Dtraverse.*} properties), as an RMI client
     * application does; reports, stops.
     */
    private static int rmiCallAtStart(String name, int up, int down, int calls, PrintStream replies)
            throws IOException {
        try {
            replies.println(RmiChecksums.call(name, up, down, calls).line());
            return 0;
        } catch (Exception e) {
            log().warn("RMI calls to '{}' failed", name, e);
            replies.println("rmi failed " + oneLine(e.toString()));
            return 1;
        } finally {
            Traverse.getDefault().close();
        }
    }

    /** What a service does with one accepted connection. */
    private interface Service {
        void handle(Socket socket) throws IOException;
    }

    /** Accepts connections until {@code listener} closes, each handled on its own thread; counted if {@code counted}. */
    private void serve(ServerSocket listener, Service service, boolean counted) {
        Thread acceptor = new Thread(
                () -> {
                    while (!listener.isClosed()) {
                        Socket socket;
                        try {
                            socket = listener.accept();
                        } catch (IOException e) {
                            return; // closed
                        }
                        if (counted) {
                            accepted.incrementAndGet();
                        }
                        connections.execute(() -> {
                            try {
                                socket.setSoTimeout(60_000);
                                service.handle(socket);
                                if (counted) {
                                    served.incrementAndGet();
                                }
                            } catch (IOException e) {
                                log().warn(
                                                "Connection from {} to {} failed: {}",
                                                socket.getRemoteSocketAddress(),
                                                listener.getLocalSocketAddress(),
                                                e.toString());
                            }
                        });
                    }
                },
                "agent-accept-" + listener.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    private void verify(Socket socket) throws IOException {
        DigestEcho.serve(socket, nodeId);
    }

    private void obeyCommands() throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            String[] words = line.trim().split("\\s+");
            try {
                if (!obey(words)) {
                    return;
                }
            } catch (RuntimeException e) {
                replies.println("error " + oneLine(e.toString()));
            }
        }
    }

    /** Carries out one command; false when told to quit. */
    private boolean obey(String[] words) {
        switch (words[0]) {
            case "connect" -> {
                if (words.length != 4) {
                    replies.println("error usage: connect <VIRTUAL-ADDRESS> <BYTES> <TIMEOUT-MS>");
                } else {
                    replies.println(connect(node, words[1], Long.parseLong(words[2]), Integer.parseInt(words[3]))
                            .line());
                }
            }
            case "rtt", "plain-rtt", "plain-connect" -> {
                if (words.length != 4) {
                    replies.println("error usage: " + words[0] + " <ADDRESS> <ROUNDS-OR-BYTES> <TIMEOUT-MS>");
                } else if (words[0].equals("rtt")) {
                    replies.println(roundTrips(words[1], null, Integer.parseInt(words[2]), Integer.parseInt(words[3]))
                            .line());
                } else {
                    InetSocketAddress target = plainAddress(words[1]);
                    replies.println(
                            words[0].equals("plain-rtt")
                                    ? roundTrips(null, target, Integer.parseInt(words[2]), Integer.parseInt(words[3]))
                                            .line()
                                    : plainConnect(target, Long.parseLong(words[2]), Integer.parseInt(words[3]))
                                            .line());
                }
            }
            case "await-network" -> {
                if (words.length != 4) {
                    replies.println("error usage: await-network <NODES> <HUBS> <TIMEOUT-MS>");
                } else {
                    replies.println(awaitNetwork(
                            Integer.parseInt(words[1]), Integer.parseInt(words[2]), Long.parseLong(words[3])));
                }
            }
            case "status" -> replies.println("status accepted=" + accepted.get() + " served=" + served.get());
            case "identity" -> replies.println("identity " + node.identity());
            case "quit" -> {
                replies.println("bye");
                return false;
            }
            case "" -> {
                // blank line: nothing to do
            }
            default -> replies.println("error unknown command '" + oneLine(words[0]) + "'");
        }
        return true;
    }

    /** Connects, sends, verifies; never throws. */
    private static TransferResult connect(Traverse node, String address, long bytes, int timeoutMillis) {
        long start = System.nanoTime();
        try {
            SocketAddress target = target(address);
            try (Socket socket = node.socketFactory().createSocket()) {
                socket.connect(target, timeoutMillis);
                Optional<ConnectionInfo> info = node.connectionInfo(socket);
                socket.setSoTimeout(60_000);
                DigestEcho.Reply reply = DigestEcho.exchangeVerified(socket, bytes, System.nanoTime());
                Optional<String> expected = target instanceof VirtualSocketAddress v
                        ? v.node().id().map(Object::toString)
                        : Optional.empty();
                if (expected.isPresent() && !expected.get().equals(reply.servedBy())) {
                    throw new IOException("verification failed: connected to node " + reply.servedBy()
                            + " instead of node " + expected.get());
                }
                return TransferResult.succeeded(
                        info.map(ConnectionInfo::module).orElse("?"),
                        info.map(i -> i.setupTime().toNanos() / 1000).orElse(-1L),
                        elapsedMillis(start),
                        bytes,
                        reply.servedBy(),
                        reply.peer(),
                        info.map(i -> i.protection().name()).orElse("?"));
            }
        } catch (Exception e) {
            return TransferResult.failed(elapsedMillis(start), e);
        }
    }

    /** A virtual address, or {@code NAME:PORT} as an application passes a host name (unresolved). */
    private static SocketAddress target(String address) {
        int colon = address.lastIndexOf(':');
        String host = colon < 0 ? address : address.substring(0, colon);
        if (colon < 0 || NodeIdentity.looksLikeIdentity(host)) {
            return VirtualSocketAddress.parse(address);
        }
        return InetSocketAddress.createUnresolved(host, Integer.parseInt(address.substring(colon + 1)));
    }

    /** Asks the hub network how many nodes and hubs it knows until there are enough or time is up. */
    private String awaitNetwork(int nodes, int hubs, long timeoutMillis) {
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000;
        int knownNodes = -1;
        int knownHubs = -1;
        while (true) {
            try {
                knownNodes =
                        node.hubDirectory().nodes().get(5, TimeUnit.SECONDS).size();
                knownHubs = node.hubDirectory().hubs().get(5, TimeUnit.SECONDS).size();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            } catch (Exception e) {
                log().debug("Asking the hub network failed: {}", e.toString());
            }
            if ((knownNodes >= nodes && knownHubs >= hubs) || System.nanoTime() > deadline) {
                break;
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        return "network " + (knownNodes >= nodes && knownHubs >= hubs ? "ok" : "incomplete") + " nodes=" + knownNodes
                + " hubs=" + knownHubs;
    }

    /** Connects with a plain {@code java.net.Socket}, sends, verifies; never throws. */
    private static TransferResult plainConnect(InetSocketAddress target, long bytes, int timeoutMillis) {
        long start = System.nanoTime();
        try (Socket socket = new Socket()) {
            socket.connect(target, timeoutMillis);
            long setupMicros = (System.nanoTime() - start) / 1000;
            socket.setSoTimeout(60_000);
            DigestEcho.Reply reply = DigestEcho.exchangeVerified(socket, bytes, System.nanoTime());
            return TransferResult.succeeded(
                    "plain", setupMicros, elapsedMillis(start), bytes, reply.servedBy(), reply.peer(), "NONE");
        } catch (Exception e) {
            return TransferResult.failed(elapsedMillis(start), e);
        }
    }

    /** Times one-byte round trips over a Traverse connection ({@code virtual}) or a plain one ({@code plain}); never throws. */
    private RoundTripResult roundTrips(String virtual, InetSocketAddress plain, int rounds, int timeoutMillis) {
        try {
            long start = System.nanoTime();
            Socket socket;
            String module;
            long setupMicros;
            int hubs = 0;
            if (virtual != null) {
                socket = node.socketFactory().createSocket();
                socket.connect(VirtualSocketAddress.parse(virtual), timeoutMillis);
                Optional<ConnectionInfo> info = node.connectionInfo(socket);
                module = info.map(ConnectionInfo::module).orElse("?");
                setupMicros = info.map(i -> i.setupTime().toNanos() / 1000).orElse(-1L);
                hubs = info.map(ConnectionInfo::hubsTraversed).orElse(0);
            } else {
                socket = new Socket();
                socket.connect(plain, timeoutMillis);
                module = "plain";
                setupMicros = (System.nanoTime() - start) / 1000;
            }
            try (socket) {
                socket.setSoTimeout(10_000);
                long[] times = PathMeasurement.roundTrips(socket, rounds);
                return new RoundTripResult(true, module, setupMicros, hubs, rounds, times[rounds / 2], times[0], "");
            }
        } catch (Exception e) {
            return RoundTripResult.failed(e);
        }
    }

    private static InetSocketAddress plainAddress(String hostPort) {
        int colon = hostPort.lastIndexOf(':');
        if (colon < 0) {
            throw new IllegalArgumentException("'" + hostPort + "' is not HOST:PORT");
        }
        return new InetSocketAddress(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
    }

    /** Looked up late: the logger must not start before main has pointed it at stderr. */
    private static Logger log() {
        return LoggerFactory.getLogger(NodeAgent.class);
    }

    private static long elapsedMillis(long startNanos) {
        return (System.nanoTime() - startNanos) / 1_000_000;
    }

    private static String oneLine(String text) {
        return text.replaceAll("[\\r\\n]+", " ");
    }
}
