package io.traverse.direct;

import static org.assertj.core.api.Assertions.assertThat;

import io.traverse.Traverse;
import io.traverse.TraverseConfig;
import io.traverse.TraverseServerSocket;
import io.traverse.VirtualSocketAddress;
import io.traverse.identity.AddressClass;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The default: a node listening on every interface of whatever machine the tests run on. */
@Timeout(30)
class WildcardNodeTest {
    @Test
    void startsWithEveryUsableInterfaceAddressAndIsReachable() throws Exception {
        try (Traverse node = Traverse.start(TraverseConfig.defaults());
                Traverse client = Traverse.start(
                        TraverseConfig.builder().bind("127.0.0.1").build())) {
            assertThat(node.identity().addresses()).isNotEmpty().allSatisfy(a -> {
                assertThat(a.getPort()).isEqualTo(node.listeningPort());
                assertThat(AddressClass.of(a.getAddress())).isNotEqualTo(AddressClass.LINK_LOCAL);
                if (a.getAddress() instanceof Inet6Address v6) {
                    assertThat(v6.getScopeId()).as("no zone in %s", a).isZero();
                }
            });
            assertThat(node.identity().addresses())
                    .extracting(InetSocketAddress::getAddress)
                    .anyMatch(java.net.InetAddress::isLoopbackAddress);
            try (TraverseServerSocket server = node.serverSocketFactory().createServerSocket(0)) {
                CompletableFuture<Integer> accepted = CompletableFuture.supplyAsync(() -> {
                    try (Socket s = server.accept()) {
                        return s.getInputStream().read();
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
                VirtualSocketAddress a = server.virtualAddress();
                try (Socket s = client.socketFactory().createSocket(a.getHostString(), a.getPort())) {
                    s.getOutputStream().write(5);
                }
                assertThat(accepted.get(10, TimeUnit.SECONDS)).isEqualTo(5);
            }
        }
    }
}
