package io.traverse.direct;

import static org.assertj.core.api.Assertions.assertThat;

import io.traverse.Traverse;
import io.traverse.TraverseServerSocket;
import io.traverse.TraverseServerSocketFactory;
import io.traverse.VirtualSocketAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.net.ServerSocketFactory;
import javax.net.SocketFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The drop-in contract: code that knows only {@code javax.net} factories, loaded by class name as
 * JDBC drivers and HTTP clients do, moves data both ways with half-close and a SHA-256 check.
 */
@Timeout(60)
class DropInTest {
    private static final long SIZE = 16L * 1024 * 1024;

    private final TestNodes nodes = new TestNodes();
    private final ExecutorService pool = Executors.newCachedThreadPool();

    @BeforeEach
    void bindDefaultNodeToLoopback() {
        // The default node reads its settings from system properties like any deployment would.
        System.setProperty("traverse.bind", "127.0.0.1");
    }

    @AfterEach
    void tearDown() throws Exception {
        pool.shutdownNow();
        nodes.close();
        System.clearProperty("traverse.bind");
    }

    @Test
    void factoryLoadedByClassNameConnectsWithCreateSocketThenConnect() throws Exception {
        Traverse serverNode = nodes.node("127.0.0.11");
        ServerSocketFactory serverFactory = serverNode.serverSocketFactory();
        try (ServerSocket server = serverFactory.createServerSocket(5432)) {
            VirtualSocketAddress address = (VirtualSocketAddress) server.getLocalSocketAddress();
            SocketFactory factory = (SocketFactory) Class.forName("io.traverse.TraverseSocketFactory")
                    .getDeclaredConstructor()
                    .newInstance();
            try (Socket client = factory.createSocket()) {
                // What a JDBC driver does with jdbc:postgresql://NODE:5432/db
                client.connect(InetSocketAddress.createUnresolved(address.getHostString(), 5432), 10_000);
                exchangeBothWays(server, client);
            }
        }
    }

    @Test
    void factoryLoadedByClassNameConnectsWithHostAndPort() throws Exception {
        ServerSocketFactory serverFactory =
                (ServerSocketFactory) Class.forName("io.traverse.TraverseServerSocketFactory")
                        .getDeclaredConstructor()
                        .newInstance();
        try (ServerSocket server = serverFactory.createServerSocket(0)) {
            assertThat(server).isInstanceOf(TraverseServerSocket.class);
            VirtualSocketAddress address = (VirtualSocketAddress) server.getLocalSocketAddress();
            SocketFactory factory = (SocketFactory) Class.forName("io.traverse.TraverseSocketFactory")
                    .getDeclaredConstructor()
                    .newInstance();
            try (Socket client = factory.createSocket(address.getHostString(), address.getPort())) {
                assertThat(client.getClass().getName())
                        .as("createSocket(host, port) returns the JDK's own socket")
                        .doesNotStartWith("io.traverse");
                assertThat(client.getClass()).as("the JDK's plain socket class").isEqualTo(Socket.class);
                exchangeBothWays(server, client);
            }
        }
        assertThat(TraverseServerSocketFactory.getDefault()).isNotNull();
    }

    /** Both sides send 16 MiB and half-close at the same time; each checks what it got. */
    private void exchangeBothWays(ServerSocket server, Socket client) throws Exception {
        Future<Transfers.Digest[]> serverSide = pool.submit(() -> {
            try (Socket accepted = server.accept()) {
                Future<Transfers.Digest> sent = pool.submit(() -> Transfers.sendAndHalfClose(accepted, SIZE, 2));
                Transfers.Digest received = Transfers.readToEof(accepted);
                return new Transfers.Digest[] {sent.get(), received};
            }
        });
        CompletableFuture<Transfers.Digest> clientSent = CompletableFuture.supplyAsync(
                () -> {
                    try {
                        return Transfers.sendAndHalfClose(client, SIZE, 1);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                },
                pool);
        Transfers.Digest clientReceived = Transfers.readToEof(client);
        Transfers.Digest[] server2 = serverSide.get(30, TimeUnit.SECONDS);
        assertThat(server2[1]).as("server received what the client sent").isEqualTo(clientSent.get());
        assertThat(clientReceived).as("client received what the server sent").isEqualTo(server2[0]);
        assertThat(clientReceived.length()).isEqualTo(SIZE);
    }
}
