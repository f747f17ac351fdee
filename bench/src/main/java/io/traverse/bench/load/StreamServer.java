package io.traverse.bench.load;

import io.traverse.Traverse;
import io.traverse.TraverseConfig;
import io.traverse.TraverseServerSocket;
import java.io.BufferedReader;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The server side of the load runs, a process of its own ({@link LoadRun} starts it): server nodes
 * linked to one hub, each accepting relayed connections on one virtual port with a thread per
 * connection, which echoes each chunk's timestamp, hashes the stream to EOF and answers length and
 * SHA-256 ({@link PacedStreamFormat}); the same on a plain loopback socket for control runs.
 * Prints {@code SERVER i ADDRESS} per node, {@code PLAIN 127.0.0.1:PORT} and {@code READY},
 * then four times a second {@code STAT} with connections open and failures per client group
 * ({@code reset@1:12}: 12 resets of group 1's connections); ends at end of input.
 *
 * <p>Arguments: {@code hubHost:port token serverNodes virtualPort readTimeoutMillis}.
 */
public final class StreamServer {
    private final PrintStream out = System.out;
    private final FailureKinds failures = new FailureKinds(out);
    private final LongAdder accepted = new LongAdder();
    private final LongAdder answered = new LongAdder();
    private final LongAdder bytesRead = new LongAdder();
    private final Map<Integer, AtomicLong> openByGroup = new ConcurrentHashMap<>();
    private final int readTimeoutMillis;

    private StreamServer(int readTimeoutMillis) {
        this.readTimeoutMillis = readTimeoutMillis;
    }

    public static void main(String[] args) throws Exception {
        String[] hub = args[0].split(":");
        String token = args[1];
        int nodes = Integer.parseInt(args[2]);
        int port = Integer.parseInt(args[3]);
        StreamServer server = new StreamServer(Integer.parseInt(args[4]));
        TraverseConfig config = LoadClient.nodeConfig(new InetSocketAddress(hub[0], Integer.parseInt(hub[1])), token);
        List<Traverse> started = new ArrayList<>();
        try {
            for (int i = 0; i < nodes; i++) {
                Traverse node = Traverse.start(config);
                started.add(node);
                if (!node.awaitHubLink(Duration.ofSeconds(30))) {
                    throw new IOException("server node " + i + " did not link to the hub within 30 s");
                }
                TraverseServerSocket listening =
                        (TraverseServerSocket) node.serverSocketFactory().createServerSocket(port, 4096);
                server.out.println("SERVER " + i + " " + listening.getLocalSocketAddress());
                Thread acceptor = new Thread(() -> server.acceptAll(listening::accept), "accept-" + i);
                acceptor.setDaemon(true);
                acceptor.start();
            }
            // The control runs (--transport plain) reach the same serving code over a plain loopback socket.
            java.net.ServerSocket plain = new java.net.ServerSocket(0, 4096, java.net.InetAddress.getLoopbackAddress());
            server.out.println("PLAIN 127.0.0.1:" + plain.getLocalPort());
            Thread plainAcceptor = new Thread(() -> server.acceptAll(plain::accept), "accept-plain");
            plainAcceptor.setDaemon(true);
            plainAcceptor.start();
            server.out.println("READY");
            Thread stats = new Thread(server::printStats, "stats");
            stats.setDaemon(true);
            stats.start();
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            while (in.readLine() != null) {
                // runs until the coordinator closes our input (or kills us)
            }
        } finally {
            for (Traverse node : started) {
                node.close();
            }
        }
    }

    /** Accepts one socket. */
    private interface Acceptor {
        Socket accept() throws IOException;
    }

    private void acceptAll(Acceptor listening) {
        while (true) {
            Socket s;
            try {
                s = listening.accept();
            } catch (IOException e) {
                failures.count("accept", String.valueOf(e.getMessage()));
                return;
            }
            accepted.increment();
            ConnectionThreads.start("serve", () -> serve(s));
        }
    }

    private void serve(Socket s) {
        AtomicLong open = null;
        int group = -1;
        String phase = "header";
        try (s) {
            s.setSoTimeout(readTimeoutMillis);
            DataInputStream in = new DataInputStream(s.getInputStream());
            OutputStream out = s.getOutputStream();
            MessageDigest sha = sha256();
            byte[] header = new byte[PacedStreamFormat.HEADER_BYTES];
            in.readFully(header);
            int[] chunkAndGroup = PacedStreamFormat.parseHeader(header);
            sha.update(header);
            long length = header.length;
            group = chunkAndGroup[1];
            phase = "stream";
            open = openByGroup.computeIfAbsent(group, g -> new AtomicLong());
            open.incrementAndGet();
            byte[] chunk = new byte[chunkAndGroup[0]];
            while (true) {
                int n = in.readNBytes(chunk, 0, chunk.length);
                sha.update(chunk, 0, n);
                length += n;
                bytesRead.add(n);
                if (n < chunk.length) {
                    break; // EOF: the client half-closed
                }
                out.write(chunk, 0, PacedStreamFormat.ECHO_BYTES);
            }
            phase = "answer";
            out.write(PacedStreamFormat.answer(length, sha.digest()));
            answered.increment();
        } catch (IOException | RuntimeException e) {
            // by client group ("reset@1"), so a run can tell the killed JVM's connections from the survivors'
            failures.count(FailureKinds.kindOf(e) + "@" + group, "[" + phase + "] " + e.getMessage());
        } finally {
            if (open != null) {
                open.decrementAndGet();
            }
        }
    }

    private void printStats() {
        while (true) {
            StringBuilder open = new StringBuilder();
            openByGroup.forEach(
                    (g, n) -> open.append(g).append(':').append(n.get()).append(','));
            synchronized (out) {
                out.println("STAT accepted=" + accepted.sum() + " answered=" + answered.sum() + " read="
                        + bytesRead.sum() + " open=" + (open.length() == 0 ? "-" : open.substring(0, open.length() - 1))
                        + " failures=" + failures.encode());
            }
            try {
                Thread.sleep(250);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
