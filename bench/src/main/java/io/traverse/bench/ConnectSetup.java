package io.traverse.bench;

import io.traverse.Traverse;
import io.traverse.VirtualSocketAddress;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Connection setup on loopback, measured until the application can use the socket.
 * <ul>
 *   <li>{@code usable}: plain: {@code new Socket()} + {@code connect} returns; Traverse:
 *       {@code createSocket(host, port)} returns, i.e. after the identity handshake (one round
 *       trip, cached direct module). The server thread accepts and closes.</li>
 *   <li>{@code firstByte}: as {@code usable}, then read the one byte the server thread writes on
 *       accept. Plain {@code firstByte} is the baseline for Traverse {@code usable}: both are a TCP
 *       handshake plus one server-to-client exchange.</li>
 * </ul>
 * The client socket is closed after each operation, outside the timed region, with
 * {@code SO_LINGER 0} (a reset) so that client ports do not pile up in TIME_WAIT.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class ConnectSetup {
    @Param({"plain", "traverse"})
    public String contender;

    private Endpoint silent;
    private Endpoint speaking;
    private Traverse serverNode;
    private Traverse clientNode;
    private ServerSocket[] listeners;
    private Thread[] acceptors;
    private volatile boolean running;

    /** Where a client connects; for Traverse the host is the node's text form. */
    private record Endpoint(String host, int port, InetSocketAddress inet) {}

    @Setup(Level.Trial)
    public void start() throws IOException {
        running = true;
        if (contender.equals("plain")) {
            listeners = new ServerSocket[] {Loopback.plainServer(), Loopback.plainServer()};
            silent = new Endpoint(null, 0, (InetSocketAddress) listeners[0].getLocalSocketAddress());
            speaking = new Endpoint(null, 0, (InetSocketAddress) listeners[1].getLocalSocketAddress());
        } else if (contender.equals("traverse")) {
            serverNode = Loopback.startNode();
            clientNode = Loopback.startNode();
            // The same backlog as the plain server sockets. With the default (50) a burst of setups
            // while the accepting thread waits for the core ends in OVERLOAD ("Connection refused"),
            // where the kernel would only hold back the SYN.
            listeners = new ServerSocket[] {
                serverNode.serverSocketFactory().createServerSocket(0, Loopback.BACKLOG),
                serverNode.serverSocketFactory().createServerSocket(0, Loopback.BACKLOG)
            };
            silent = traverseEndpoint(listeners[0]);
            speaking = traverseEndpoint(listeners[1]);
        } else {
            throw new IllegalArgumentException("unknown contender " + contender);
        }
        acceptors = new Thread[] {acceptLoop(listeners[0], false), acceptLoop(listeners[1], true)};
        if (clientNode != null) {
            // The first connection fills the per-hub module cache; measure cached setups only.
            Socket s = clientNode.socketFactory().createSocket(silent.host, silent.port);
            String module = clientNode.connectionInfo(s).map(i -> i.module()).orElse("?");
            s.close();
            if (!"direct".equals(module)) {
                throw new IllegalStateException("expected a direct connection, got module " + module);
            }
        }
    }

    private static Endpoint traverseEndpoint(ServerSocket listener) {
        VirtualSocketAddress v = (VirtualSocketAddress) listener.getLocalSocketAddress();
        return new Endpoint(v.getHostString(), v.getPort(), null);
    }

    private Thread acceptLoop(ServerSocket listener, boolean writeFirstByte) {
        return Loopback.serverThread("bench-acceptor", () -> {
            while (running) {
                try (Socket s = listener.accept()) {
                    Loopback.tune(s);
                    if (writeFirstByte) {
                        s.getOutputStream().write(1);
                    }
                } catch (IOException e) {
                    if (!running || listener.isClosed()) {
                        return;
                    }
                    // a client gone early: keep serving
                }
            }
        });
    }

    @TearDown(Level.Trial)
    public void stop() {
        running = false;
        for (ServerSocket l : listeners) {
            Loopback.closeQuietly(l);
        }
        for (Thread t : acceptors) {
            Loopback.join(t);
        }
        Loopback.closeQuietly(clientNode);
        Loopback.closeQuietly(serverNode);
    }

    /** The client socket of the current operation, closed after it, untimed. */
    @State(Scope.Thread)
    public static class Connection {
        Socket socket;

        @TearDown(Level.Invocation)
        public void close() throws IOException {
            if (socket != null) {
                // Reset instead of FIN: otherwise ~28k client ports fill with TIME_WAIT within seconds
                // and connect() spends its time searching for a free port. Same for both contenders.
                socket.setSoLinger(true, 0);
                socket.close();
                socket = null;
            }
        }
    }

    private Socket connect(Endpoint e) throws IOException {
        if (e.inet != null) {
            Socket s = Loopback.tune(new Socket());
            s.connect(e.inet);
            return s;
        }
        return Loopback.tune(clientNode.socketFactory().createSocket(e.host, e.port));
    }

    @Benchmark
    public Socket usable(Connection c) throws IOException {
        c.socket = connect(silent);
        return c.socket;
    }

    @Benchmark
    public int firstByte(Connection c) throws IOException {
        Socket s = connect(speaking);
        c.socket = s;
        InputStream in = s.getInputStream();
        int b = in.read();
        if (b != 1) {
            throw new IOException("expected the server's first byte, got " + b);
        }
        return b;
    }
}
