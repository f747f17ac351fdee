package io.traverse.direct;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.traverse.Traverse;
import io.traverse.VirtualSocketAddress;
import io.traverse.identity.HostKey;
import io.traverse.identity.NodeIdentity;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Candidate filtering end to end on loopback: a refusal at an address that is not the target does not end
 * the race, and a loopback address of a node on another host (by its host key) is not dialled.
 */
@Timeout(30)
class CandidateFilteringTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    /** A loopback port where nothing listens (bound, then closed: the kernel refuses it). */
    private static int refusedPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, LOOPBACK)) {
            return s.getLocalPort();
        }
    }

    /** The server's identity with other addresses and host key (same id, so its handshake accepts). */
    private static NodeIdentity retold(Traverse server, String hostKey, InetSocketAddress... addresses) {
        NodeIdentity.Builder b =
                NodeIdentity.builder().id(server.identity().id().orElseThrow()).hostKey(hostKey);
        for (InetSocketAddress a : addresses) {
            b.address(a);
        }
        return b.build();
    }

    @Test
    void aRefusalAtAnotherAddressIsNotTheTargetsAnswer() throws Exception {
        assumeTrue(HostKey.local().isPresent(), "needs /proc to know this host's key");
        try (TestNodes nodes = new TestNodes()) {
            Traverse server = nodes.node("127.0.0.1");
            Traverse client = nodes.node("127.0.0.1");
            ServerSocket listener = nodes.track(server.serverSocketFactory().createServerSocket(0));
            int vport = listener.getLocalPort();
            InetSocketAddress real = server.identity().addresses().get(0);
            InetSocketAddress refusing = new InetSocketAddress(LOOPBACK, refusedPort());
            // Same host, the refusing address first in the target's own order.
            NodeIdentity target = retold(server, HostKey.local().get(), refusing, real);

            CompletableFuture<Transfers.Digest> received = CompletableFuture.supplyAsync(() -> {
                try (Socket s = listener.accept()) {
                    return Transfers.readToEof(s);
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            });
            try (Socket s = client.socketFactory().connect(new VirtualSocketAddress(target, vport), 10_000)) {
                Transfers.Digest sent = Transfers.sendAndHalfClose(s, 300_000, 12);
                assertThat(received.get(20, TimeUnit.SECONDS)).isEqualTo(sent);
                assertThat(s.getInputStream().read())
                        .as("EOF after the server closed")
                        .isEqualTo(-1);
            }
        }
    }

    @Test
    void loopbackOfANodeOnAnotherHostIsSkippedAndNamed() throws Exception {
        assumeTrue(HostKey.local().isPresent(), "needs /proc to know this host's key");
        try (TestNodes nodes = new TestNodes()) {
            Traverse server = nodes.node("127.0.0.1");
            Traverse client = nodes.node("127.0.0.1", b -> b.modules("direct"));
            ServerSocket listener = nodes.track(server.serverSocketFactory().createServerSocket(0));
            listener.setSoTimeout(300);
            InetSocketAddress real = server.identity().addresses().get(0);
            // The very node, but its identity says it runs in another network stack: its 127.0.0.1
            // would be this host's loopback, whoever answers there.
            NodeIdentity elsewhere = retold(server, "anotherstack", real);

            assertThatThrownBy(() -> client.socketFactory()
                            .connect(new VirtualSocketAddress(elsewhere, listener.getLocalPort()), 5_000))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("skipped 127.0.0.1:" + real.getPort() + " (loopback of another host)");
            assertThatThrownBy(listener::accept)
                    .as("nothing reached the server")
                    .isInstanceOf(java.net.SocketTimeoutException.class);
        }
    }

    @Test
    void aRefusalWithNothingElseToTryNamesTheAddressAndKeepsTheJdkType() throws Exception {
        assumeTrue(HostKey.local().isPresent(), "needs /proc to know this host's key");
        try (TestNodes nodes = new TestNodes()) {
            Traverse server = nodes.node("127.0.0.1");
            Traverse client = nodes.node("127.0.0.1", b -> b.modules("direct"));
            int port = refusedPort();
            NodeIdentity target = retold(server, HostKey.local().get(), new InetSocketAddress(LOOPBACK, port));
            assertThatThrownBy(() -> client.socketFactory().connect(new VirtualSocketAddress(target, 80), 5_000))
                    .isInstanceOf(java.net.ConnectException.class)
                    .hasMessageContaining("127.0.0.1:" + port);
        }
    }
}
