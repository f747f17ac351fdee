package io.traverse.testbed;

import io.traverse.ConnectionInfo;
import io.traverse.Traverse;
import io.traverse.TraverseConfig;
import io.traverse.TraverseServerSocket;
import io.traverse.VirtualSocketAddress;
import io.traverse.config.ConfigKey;
import io.traverse.config.ConfigSources;
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Traverse node in its own JVM, driven line by line, for running nodes inside testbed
 * namespaces ({@link RunningNode} starts it with {@code ip netns exec NS java ... NodeAgent}).
 *
 * <p>It configures its node like any application ({@code -Dtraverse.*} system properties,
 * {@code TRAVERSE_*} environment, then {@code key=value} arguments, which win), opens the
 * {@link DigestEcho} verification service on a virtual port, prints {@code address
 * <VIRTUAL-ADDRESS>} on stdout and then obeys commands on stdin, one reply line each:
 * <ul>
 *   <li>{@code connect <VIRTUAL-ADDRESS> <BYTES> <TIMEOUT-MS>} — connects through the node's
 *       {@code TraverseSocketFactory}, sends BYTES random bytes, half-closes, checks the reply's
 *       length, SHA-256 and node id; answers a {@link TransferResult} line;</li>
 *   <li>{@code status} — {@code status accepted=N served=M} for the verification service;</li>
 *   <li>{@code quit} (or end of stdin) — closes the node and exits.</li>
 * </ul>
 * With {@code --connect-at-start <VIRTUAL-ADDRESS> <BYTES> <TIMEOUT-MS>} it is a one-shot cold
 * client instead: it starts its node, connects at once — without waiting for its hub link, as an
 * application's first connection in a fresh JVM does — prints the {@link TransferResult} line,
 * closes the node and exits (0 if the transfer was verified, 1 if not).
 * Stdout carries nothing else; logs go to stderr. Usage:
 * {@code NodeAgent [--service-port N | --connect-at-start ADDRESS BYTES TIMEOUT-MS] [traverse.KEY=VALUE ...]}.
 */
public final class NodeAgent {
    private final Traverse node;
    private final TraverseServerSocket server;
    private final PrintStream replies;
    private final String nodeId;
    private final AtomicLong accepted = new AtomicLong();
    private final AtomicLong served = new AtomicLong();
    private final ExecutorService connections = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "agent-service");
        t.setDaemon(true);
        return t;
    });

    private NodeAgent(Traverse node, TraverseServerSocket server, PrintStream replies) {
        this.node = node;
        this.server = server;
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
        String[] coldConnect = null;
        TraverseConfig.Builder config = TraverseConfig.builderFrom(ConfigSources.collect());
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (arg.equals("--service-port") && i + 1 < args.length) {
                servicePort = Integer.parseInt(args[++i]);
            } else if (arg.equals("--connect-at-start") && i + 3 < args.length) {
                coldConnect = new String[] {args[i + 1], args[i + 2], args[i + 3]};
                i += 3;
            } else if (arg.startsWith("traverse.") && arg.contains("=")) {
                String key = arg.substring(0, arg.indexOf('='));
                ConfigKey k = ConfigKey.byKey(key).orElseThrow(() -> new IllegalArgumentException("unknown key " + key));
                config.set(k, arg.substring(arg.indexOf('=') + 1), "argument");
            } else {
                throw new IllegalArgumentException("unexpected argument '" + arg
                        + "'; usage: NodeAgent [--service-port N | --connect-at-start ADDRESS BYTES TIMEOUT-MS]"
                        + " [traverse.KEY=VALUE ...]");
            }
        }
        if (coldConnect != null) {
            return connectAtStart(config.build(), coldConnect[0], Long.parseLong(coldConnect[1]),
                    Integer.parseInt(coldConnect[2]), replies);
        }
        try (Traverse node = Traverse.start(config.build());
                TraverseServerSocket server = node.serverSocketFactory().createServerSocket(servicePort)) {
            NodeAgent agent = new NodeAgent(node, server, replies);
            agent.serve();
            if (!node.config().hubs().isEmpty() && !node.awaitHubLink(node.config().hubTimeout())) {
                // Said here rather than found out at the first connect: the test's setup is wrong.
                replies.println("no hub link within " + node.config().hubTimeout().toMillis() + " ms: " + node.hubLinkStatus());
                return 1;
            }
            replies.println("address " + server.getLocalSocketAddress());
            agent.obeyCommands();
            agent.connections.shutdownNow();
        }
        return 0;
    }

    /** The one-shot cold client: start, connect at once, report, stop. */
    private static int connectAtStart(TraverseConfig config, String address, long bytes, int timeoutMillis,
            PrintStream replies) throws IOException {
        try (Traverse node = Traverse.start(config)) {
            TransferResult result = connect(node, address, bytes, timeoutMillis);
            replies.println(result.line());
            return result.ok() ? 0 : 1;
        }
    }

    /** Accepts verification connections until the server socket closes. */
    private void serve() {
        Thread acceptor = new Thread(() -> {
            while (!server.isClosed()) {
                Socket socket;
                try {
                    socket = server.accept();
                } catch (IOException e) {
                    return; // closed
                }
                accepted.incrementAndGet();
                connections.execute(() -> {
                    try {
                        socket.setSoTimeout(60_000);
                        DigestEcho.serve(socket, nodeId);
                        served.incrementAndGet();
                    } catch (IOException e) {
                        log().warn("Verification connection from {} failed: {}", socket.getRemoteSocketAddress(), e.toString());
                    }
                });
            }
        }, "agent-accept");
        acceptor.setDaemon(true);
        acceptor.start();
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
                    replies.println(connect(node, words[1], Long.parseLong(words[2]), Integer.parseInt(words[3])).line());
                }
            }
            case "status" -> replies.println("status accepted=" + accepted.get() + " served=" + served.get());
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
            VirtualSocketAddress target = VirtualSocketAddress.parse(address);
            try (Socket socket = node.socketFactory().createSocket()) {
                socket.connect(target, timeoutMillis);
                Optional<ConnectionInfo> info = node.connectionInfo(socket);
                socket.setSoTimeout(60_000);
                DigestEcho.Digest sent = DigestEcho.sendAndHalfClose(socket, bytes, System.nanoTime());
                DigestEcho.Reply reply = DigestEcho.readReply(socket);
                if (!reply.matches(sent)) {
                    throw new IOException("verification failed: sent " + sent.length() + " bytes with SHA-256 "
                            + sent.sha256() + ", the far end read " + reply.length() + " bytes with SHA-256 " + reply.sha256());
                }
                Optional<String> expected = target.node().id().map(Object::toString);
                if (expected.isPresent() && !expected.get().equals(reply.servedBy())) {
                    throw new IOException("verification failed: connected to node " + reply.servedBy()
                            + " instead of node " + expected.get());
                }
                return TransferResult.succeeded(info.map(ConnectionInfo::module).orElse("?"),
                        info.map(i -> i.setupTime().toNanos() / 1000).orElse(-1L), elapsedMillis(start), bytes,
                        reply.servedBy(), reply.peer());
            }
        } catch (Exception e) {
            return TransferResult.failed(elapsedMillis(start), e);
        }
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
