package io.traverse.direct;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.traverse.Traverse;
import io.traverse.TraverseServerSocket;
import io.traverse.TraverseSocket;
import io.traverse.VirtualSocketAddress;
import io.traverse.firewall.FirewallRule;
import java.io.IOException;
import java.io.InputStream;
import java.net.BindException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Traverse sockets behave like java.net sockets: the same exceptions in the same situations. */
@Timeout(60)
class SocketSemanticsTest {
    private final TestNodes nodes = new TestNodes();
    private final ExecutorService pool = Executors.newCachedThreadPool();
    private Traverse client;
    private Traverse server;

    @BeforeEach
    void start() throws Exception {
        client = nodes.node("127.0.0.21");
        server = nodes.node("127.0.0.22");
    }

    @AfterEach
    void stop() throws Exception {
        pool.shutdownNow();
        nodes.close();
    }

    private Socket connect(VirtualSocketAddress address) throws Exception {
        return client.socketFactory().createSocket(address.getHostString(), address.getPort());
    }

    @Test
    void halfCloseDeliversEofAndThePeerMayKeepWriting() throws Exception {
        try (TraverseServerSocket ss = server.serverSocketFactory().createServerSocket(7000)) {
            Future<Transfers.Digest> serverReply = pool.submit(() -> {
                try (Socket s = ss.accept()) {
                    Transfers.Digest got = Transfers.readToEof(s); // EOF after the client's shutdownOutput
                    s.getOutputStream().write(("got " + got.length() + " " + got.sha256()).getBytes());
                    return got;
                }
            });
            try (Socket s = connect(ss.virtualAddress())) {
                Transfers.Digest sent = Transfers.sendAndHalfClose(s, 1_000_000, 7);
                assertThat(s.isOutputShutdown()).isTrue();
                String answer = new String(s.getInputStream().readAllBytes());
                assertThat(answer).isEqualTo("got " + sent.length() + " " + sent.sha256());
                assertThat(serverReply.get(10, TimeUnit.SECONDS)).isEqualTo(sent);
            }
        }
    }

    @Test
    void bothEndsAreTheJdksOwnBlockingSocketsAfterTheTimedHandshake() throws Exception {
        try (TraverseServerSocket ss = server.serverSocketFactory().createServerSocket(0)) {
            Future<Boolean> accepted = pool.submit(() -> {
                try (Socket s = ss.accept()) {
                    return s.getChannel() != null && s.getChannel().isBlocking();
                }
            });
            try (Socket s = connect(ss.virtualAddress())) {
                // the very class new Socket(host, port) returns: no wrapper, the JDK's own data path
                assertThat(s.getClass()).isEqualTo(Socket.class);
                s.getOutputStream().write(1); // usable as it is, no mode left over from the handshake
                assertThat(accepted.get(10, TimeUnit.SECONDS)).isTrue();
            }
        }
    }

    @Test
    void closeGivesEofToThePeer() throws Exception {
        try (TraverseServerSocket ss = server.serverSocketFactory().createServerSocket(0)) {
            Future<Integer> peerRead = pool.submit(() -> {
                try (Socket s = ss.accept()) {
                    return s.getInputStream().read();
                }
            });
            Socket s = connect(ss.virtualAddress());
            s.close();
            assertThat(peerRead.get(10, TimeUnit.SECONDS)).isEqualTo(-1);
            assertThatThrownBy(s::getInputStream).isInstanceOf(SocketException.class);
        }
    }

    @Test
    void readTimeoutThrowsSocketTimeoutExceptionAndTheSocketStaysUsable() throws Exception {
        try (TraverseServerSocket ss = server.serverSocketFactory().createServerSocket(0)) {
            CompletableFuture<Void> release = new CompletableFuture<>();
            Future<?> serverSide = pool.submit(() -> {
                try (Socket s = ss.accept()) {
                    release.get(10, TimeUnit.SECONDS);
                    s.getOutputStream().write(99);
                    s.getInputStream().read();
                }
                return null;
            });
            try (Socket s = connect(ss.virtualAddress())) {
                s.setSoTimeout(200);
                long start = System.nanoTime();
                assertThatThrownBy(() -> s.getInputStream().read()).isInstanceOf(SocketTimeoutException.class);
                assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(150));
                release.complete(null);
                s.setSoTimeout(10_000);
                assertThat(s.getInputStream().read()).isEqualTo(99);
            }
            serverSide.get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void acceptTimesOutAndCloseUnblocksAccept() throws Exception {
        TraverseServerSocket ss = server.serverSocketFactory().createServerSocket(0);
        ss.setSoTimeout(100);
        assertThatThrownBy(ss::accept)
                .isInstanceOf(SocketTimeoutException.class)
                .hasMessage("Accept timed out");
        ss.setSoTimeout(0);
        Future<Socket> blocked = pool.submit(ss::accept);
        Thread.sleep(100);
        ss.close();
        assertThatThrownBy(() -> blocked.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(SocketException.class);
        assertThat(ss.isClosed()).isTrue();
        assertThatThrownBy(ss::accept).isInstanceOf(SocketException.class);
    }

    /** Sends a megabyte and expects the server to echo its length and digest after EOF. */
    private void exchangeThrough(TraverseServerSocket ss, Future<Socket> acceptedLater, long seed) throws Exception {
        try (Socket s = connect(ss.virtualAddress())) {
            Future<Transfers.Digest> received = pool.submit(() -> {
                try (Socket accepted = acceptedLater.get(10, TimeUnit.SECONDS)) {
                    return Transfers.readToEof(accepted);
                }
            });
            Transfers.Digest sent = Transfers.sendAndHalfClose(s, 1_000_000, seed);
            assertThat(received.get(10, TimeUnit.SECONDS)).isEqualTo(sent);
        }
    }

    @Test
    void interruptingAThreadWaitingInAcceptLeavesTheNodesListeningSocketWorking() throws Exception {
        // A thread waiting in accept() takes connections from the node's listening socket itself:
        // its interrupt must end only its own accept(), never close that shared socket.
        try (TraverseServerSocket ss = server.serverSocketFactory().createServerSocket(0)) {
            CompletableFuture<Thread> acceptor = new CompletableFuture<>();
            Future<Socket> interrupted = pool.submit(() -> {
                acceptor.complete(Thread.currentThread());
                return ss.accept();
            });
            Thread.sleep(200);
            acceptor.get(5, TimeUnit.SECONDS).interrupt();
            assertThatThrownBy(() -> interrupted.get(5, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(java.io.InterruptedIOException.class);
            exchangeThrough(ss, pool.submit(ss::accept), 11);
        }
    }

    @Test
    void interruptingALeadingAcceptLosesNoConnectionOfAnotherPort() throws Exception {
        // A thread in accept() that leads the listening socket handshakes other ports' connections
        // too; interrupts aimed at its accept() (cancelled tasks, pool shutdowns) must not reset them.
        try (TraverseServerSocket mine = server.serverSocketFactory().createServerSocket(0);
                TraverseServerSocket other = server.serverSocketFactory().createServerSocket(0)) {
            java.util.concurrent.atomic.AtomicBoolean running = new java.util.concurrent.atomic.AtomicBoolean(true);
            CompletableFuture<Thread> interruptible = new CompletableFuture<>();
            Future<?> acceptingMine = pool.submit(() -> {
                interruptible.complete(Thread.currentThread());
                while (running.get()) {
                    try {
                        mine.accept().close();
                    } catch (java.io.InterruptedIOException e) {
                        Thread.interrupted(); // and accept again, as a loop whose task was cancelled would not
                    } catch (IOException e) {
                        return null;
                    }
                }
                return null;
            });
            Thread target = interruptible.get(5, TimeUnit.SECONDS);
            Future<?> interrupting = pool.submit(() -> {
                while (running.get()) {
                    target.interrupt();
                    java.util.concurrent.locks.LockSupport.parkNanos(20_000);
                }
            });
            Future<?> acceptingOther = pool.submit(() -> {
                for (int i = 0; i < 200; i++) {
                    try (Socket s = other.accept()) {
                        s.getOutputStream().write(s.getInputStream().read());
                    }
                }
                return null;
            });
            List<Future<Integer>> clients = new ArrayList<>();
            ExecutorService connecting = Executors.newFixedThreadPool(8);
            try {
                for (int i = 0; i < 200; i++) {
                    int value = i & 0x7f;
                    clients.add(connecting.submit(() -> {
                        try (Socket s = connect(other.virtualAddress())) {
                            s.getOutputStream().write(value);
                            return s.getInputStream().read();
                        }
                    }));
                }
                for (int i = 0; i < clients.size(); i++) {
                    assertThat(clients.get(i).get(20, TimeUnit.SECONDS))
                            .as("connection %d", i)
                            .isEqualTo(i & 0x7f);
                }
                acceptingOther.get(20, TimeUnit.SECONDS);
            } finally {
                running.set(false);
                connecting.shutdownNow();
                interrupting.get(5, TimeUnit.SECONDS);
                mine.close();
                acceptingMine.get(5, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void aPortNobodyAcceptsOnIsAnsweredWhileAnotherPortsThreadWaitsAndWhenNoneDoes() throws Exception {
        try (TraverseServerSocket waiting = server.serverSocketFactory().createServerSocket(0);
                TraverseServerSocket idle = server.serverSocketFactory().createServerSocket(0)) {
            Future<Socket> waitingAccept = pool.submit(waiting::accept);
            Thread.sleep(100); // that thread now waits on the node's listening socket
            // connect() returns once the handshake is answered, before anyone accepts on the idle port.
            connectWriteThenAccept(idle, 42);
            exchangeThrough(waiting, waitingAccept, 13);
            // No thread waits in accept() now: the node's own acceptor thread answers.
            connectWriteThenAccept(idle, 43);
        }
    }

    private void connectWriteThenAccept(TraverseServerSocket ss, int value) throws Exception {
        try (Socket s = connect(ss.virtualAddress())) {
            s.getOutputStream().write(value);
            try (Socket accepted = ss.accept()) {
                assertThat(accepted.getInputStream().read()).isEqualTo(value);
            }
        }
    }

    @Test
    void severalThreadsAcceptingOnOnePortShareItsConnections() throws Exception {
        int threads = 4;
        int connections = 40;
        try (TraverseServerSocket ss = server.serverSocketFactory().createServerSocket(0)) {
            java.util.List<Future<Integer>> acceptors = new java.util.ArrayList<>();
            java.util.concurrent.atomic.AtomicInteger left = new java.util.concurrent.atomic.AtomicInteger(connections);
            for (int i = 0; i < threads; i++) {
                acceptors.add(pool.submit(() -> {
                    int served = 0;
                    while (left.getAndDecrement() > 0) {
                        try (Socket s = ss.accept()) {
                            s.getOutputStream().write(s.getInputStream().read() + 1);
                            served++;
                        }
                    }
                    return served;
                }));
            }
            for (int i = 0; i < connections; i++) {
                try (Socket s = connect(ss.virtualAddress())) {
                    s.getOutputStream().write(i);
                    assertThat(s.getInputStream().read()).isEqualTo(i + 1);
                }
            }
            int total = 0;
            for (Future<Integer> f : acceptors) {
                total += f.get(10, TimeUnit.SECONDS);
            }
            assertThat(total).isEqualTo(connections);
        }
    }

    @Test
    void serverSocketReportsItsVirtualAddress() throws Exception {
        try (TraverseServerSocket ss = server.serverSocketFactory().createServerSocket(6543)) {
            assertThat(ss.getLocalPort()).isEqualTo(6543);
            VirtualSocketAddress a = (VirtualSocketAddress) ss.getLocalSocketAddress();
            assertThat(a.getPort()).isEqualTo(6543);
            assertThat(a.node()).isEqualTo(server.identity());
            assertThat(VirtualSocketAddress.parse(a.toString())).isEqualTo(a);
            assertThatThrownBy(() -> server.serverSocketFactory().createServerSocket(6543))
                    .isInstanceOf(BindException.class);
        }
        // freed on close
        server.serverSocketFactory().createServerSocket(6543).close();
    }

    @Test
    void missingVirtualPortIsConnectionRefusedAndEndsAtOnce() throws Exception {
        VirtualSocketAddress nowhere = server.address(4444);
        assertThatThrownBy(() -> connect(nowhere))
                .isInstanceOf(ConnectException.class)
                .hasMessageContaining("no virtual port 4444");
    }

    @Test
    void nothingListeningIsConnectException() throws Exception {
        VirtualSocketAddress address = server.address(1);
        server.close();
        assertThatThrownBy(() -> connect(address))
                .isInstanceOf(ConnectException.class)
                .hasMessageContaining("Connection refused");
    }

    @Test
    void connectTimeoutIsSocketTimeoutException() throws Exception {
        Traverse silent = nodes.node("127.0.0.23", b -> b.firewall(FirewallRule.drop("all")));
        try (TraverseServerSocket ss = silent.serverSocketFactory().createServerSocket(0)) {
            Socket s = client.socketFactory().createSocket();
            long start = System.nanoTime();
            assertThatThrownBy(() -> s.connect(ss.getLocalSocketAddress(), 300))
                    .isInstanceOf(SocketTimeoutException.class);
            assertThat(Duration.ofNanos(System.nanoTime() - start))
                    .isBetween(Duration.ofMillis(250), Duration.ofSeconds(5));
        }
    }

    @Test
    void closingASocketUnblocksItsConnect() throws Exception {
        Traverse silent = nodes.node("127.0.0.24", b -> b.firewall(FirewallRule.drop("all")));
        try (TraverseServerSocket ss = silent.serverSocketFactory().createServerSocket(0)) {
            Socket s = client.socketFactory().createSocket();
            Future<?> connecting = pool.submit(() -> {
                s.connect(ss.getLocalSocketAddress(), 30_000);
                return null;
            });
            Thread.sleep(200);
            long start = System.nanoTime();
            s.close();
            assertThatThrownBy(() -> connecting.get(5, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(SocketException.class)
                    .hasMessageContaining("Socket closed");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
        }
    }

    @Test
    void unconnectedSocketDelegatesToTheConnectionItMakes() throws Exception {
        try (TraverseServerSocket ss = server.serverSocketFactory().createServerSocket(0)) {
            Future<Integer> serverSide = pool.submit(() -> {
                try (Socket s = ss.accept()) {
                    s.getOutputStream().write(s.getInputStream().read() + 1);
                    return s.getInputStream().read();
                }
            });
            Socket s = client.socketFactory().createSocket();
            assertThat(s).isInstanceOf(TraverseSocket.class);
            assertThat(s.isConnected()).isFalse();
            assertThatThrownBy(s::getInputStream)
                    .isInstanceOf(SocketException.class)
                    .hasMessageContaining("not connected");
            s.setSoTimeout(5_000);
            s.setTcpNoDelay(true);
            s.setKeepAlive(true);
            s.connect(ss.getLocalSocketAddress(), 5_000);
            assertThat(s.isConnected()).isTrue();
            assertThat(s.getSoTimeout()).isEqualTo(5_000);
            assertThat(s.getTcpNoDelay()).isTrue();
            assertThat(s.getKeepAlive()).isTrue();
            assertThat(s.getRemoteSocketAddress()).isEqualTo(ss.getLocalSocketAddress());
            assertThat(s.getPort()).isEqualTo(ss.getLocalPort());
            assertThat(s.getInetAddress().getHostAddress()).isEqualTo("127.0.0.22");
            InputStream in = s.getInputStream();
            assertThat(in.getClass().getName())
                    .as("the connection's own stream, no wrapper")
                    .doesNotStartWith("io.traverse");
            s.getOutputStream().write(41);
            assertThat(in.read()).isEqualTo(42);
            assertThat(client.connectionInfo(s))
                    .hasValueSatisfying(info -> assertThat(info.module()).isEqualTo("direct"));
            assertThatThrownBy(() -> s.connect(ss.getLocalSocketAddress())).isInstanceOf(SocketException.class);
            s.close();
            assertThat(s.isClosed()).isTrue();
            assertThat(serverSide.get(10, TimeUnit.SECONDS)).isEqualTo(-1);
        }
    }

    @Test
    void plainAddressesGetPlainTcp() throws Exception {
        try (ServerSocket legacy = new ServerSocket(0, 50, java.net.InetAddress.getByName("127.0.0.1"))) {
            Future<Integer> serverSide = pool.submit(() -> {
                try (Socket s = legacy.accept()) {
                    return s.getInputStream().read();
                }
            });
            try (Socket s = client.socketFactory().createSocket("127.0.0.1", legacy.getLocalPort())) {
                s.getOutputStream().write(7); // no handshake: the legacy server sees our first byte
            }
            assertThat(serverSide.get(10, TimeUnit.SECONDS)).isEqualTo(7);
            Socket s = client.socketFactory().createSocket();
            s.connect(new InetSocketAddress("127.0.0.1", legacy.getLocalPort()));
            s.close();
        }
    }

    @Test
    void malformedNodeTextIsUnknownHostNamingThePart() {
        assertThatThrownBy(() -> client.socketFactory().createSocket("tv1-abc.a300-1-1-1p4000", 80))
                .isInstanceOf(UnknownHostException.class)
                .hasMessageContaining("a300-1-1-1p4000");
    }
}
