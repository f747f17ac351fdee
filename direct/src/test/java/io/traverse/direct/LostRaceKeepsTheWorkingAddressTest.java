package io.traverse.direct;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.traverse.Traverse;
import io.traverse.TraverseServerSocket;
import io.traverse.VirtualSocketAddress;
import io.traverse.identity.HostKey;
import io.traverse.identity.NodeIdentity;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The address at which a node last answered is tried first next time — also after a connect to
 * it was called off while that address was being tried. Calling an attempt off (another attempt
 * or module won, the application gave up) says nothing against the address; before, it made the
 * node forget it, and the next connect waited for a stagger behind an address that never answers.
 */
@Timeout(60)
class LostRaceKeepsTheWorkingAddressTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private static final Duration STAGGER = Duration.ofSeconds(3);

    @Test
    void anAttemptCalledOffDoesNotMakeTheNodeForgetItsWorkingAddress() throws Exception {
        assumeTrue(HostKey.local().isPresent(), "needs /proc to know this host's key");
        try (TestNodes nodes = new TestNodes();
                ServerSocket silent = new ServerSocket(0, 50, LOOPBACK)) {
            Traverse server = nodes.node("127.0.0.1");
            Traverse client = nodes.node(
                    "127.0.0.1", b -> b.modules("direct").set("traverse.connect.stagger", STAGGER.toMillis() + "ms"));
            TraverseServerSocket listener =
                    nodes.track(server.serverSocketFactory().createServerSocket(0, 1));
            InetSocketAddress real = server.identity().addresses().get(0);
            // First in the target's own order: an address where TCP connects and nothing ever answers.
            InetSocketAddress hanging = new InetSocketAddress(LOOPBACK, silent.getLocalPort());
            NodeIdentity target = NodeIdentity.builder()
                    .id(server.identity().id().orElseThrow())
                    .hostKey(HostKey.local().get())
                    .address(hanging)
                    .address(real)
                    .build();
            VirtualSocketAddress address = new VirtualSocketAddress(target, listener.getLocalPort());

            assertThat(connectAndAccept(client, listener, address))
                    .as("first connect: the silent address costs a stagger")
                    .isGreaterThanOrEqualTo(STAGGER);
            assertThat(connectAndAccept(client, listener, address))
                    .as("second: the address that answered is tried first")
                    .isLessThan(STAGGER.dividedBy(2));

            // The backlog (1) is full, so the listener withholds its answer: the attempt at the real
            // address waits in its handshake until the application calls the connect off.
            Socket filler = client.socketFactory().connect(address, 10_000);
            Socket calledOff = client.socketFactory().createSocket();
            CompletableFuture<Void> connecting = CompletableFuture.runAsync(() -> {
                try {
                    calledOff.connect(address, 10_000);
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            });
            Thread.sleep(300);
            calledOff.close();
            assertThatThrownBy(() -> connecting.get(10, TimeUnit.SECONDS)).hasRootCauseInstanceOf(IOException.class);
            listener.accept().close(); // room again
            filler.close();

            assertThat(connectAndAccept(client, listener, address))
                    .as("after the called-off connect: still tried first")
                    .isLessThan(STAGGER.dividedBy(2));
        }
    }

    private static Duration connectAndAccept(
            Traverse client, TraverseServerSocket listener, VirtualSocketAddress address) throws Exception {
        CompletableFuture<Integer> accepted = CompletableFuture.supplyAsync(() -> {
            try (Socket s = listener.accept()) {
                return s.getInputStream().read();
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
        long start = System.nanoTime();
        try (Socket s = client.socketFactory().connect(address, 10_000)) {
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            s.getOutputStream().write('!');
            assertThat(accepted.get(10, TimeUnit.SECONDS))
                    .as("the byte reached the server")
                    .isEqualTo('!');
            return took;
        }
    }
}
