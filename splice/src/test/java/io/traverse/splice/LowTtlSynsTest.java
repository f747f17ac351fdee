package io.traverse.splice;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.StandardSocketOptions;
import org.junit.jupiter.api.Test;

class LowTtlSynsTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    @Test
    void sendsAgainAndAgainFromAPortThatAListenerShares() throws Exception {
        assumeTrue(LowTtlSyns.available(), "Netty's native epoll transport is not available here");
        try (LowTtlSyns syns = new LowTtlSyns();
                ServerSocket listener = new ServerSocket();
                ServerSocket far = new ServerSocket(0, 50, LOOPBACK)) {
            InetSocketAddress nobody = new InetSocketAddress(LOOPBACK, far.getLocalPort());
            far.close(); // a port nobody listens on: the SYN draws a reset, which finds no socket
            listener.setReuseAddress(true);
            listener.setOption(StandardSocketOptions.SO_REUSEPORT, true);
            listener.bind(new InetSocketAddress(LOOPBACK, 0));
            InetSocketAddress local = new InetSocketAddress(LOOPBACK, listener.getLocalPort());
            assertThatCode(() -> {
                        for (int i = 0; i < 300; i++) {
                            syns.send(local, nobody, 3); // fails if the TTL could not be set, or the port not shared
                        }
                    })
                    .doesNotThrowAnyException();
        }
    }
}
