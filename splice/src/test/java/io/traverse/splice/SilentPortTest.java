package io.traverse.splice;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import org.junit.jupiter.api.Test;

class SilentPortTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    @Test
    void aSynToASilentPortIsDroppedWhereAClosedPortResetsIt() throws Exception {
        int port;
        try (ServerSocket probe = new ServerSocket(0, 1, LOOPBACK)) {
            port = probe.getLocalPort();
        }
        InetSocketAddress address = new InetSocketAddress(LOOPBACK, port);
        try (Socket closed = new Socket()) {
            assertThatThrownBy(() -> closed.connect(address, 2_000))
                    .as("nothing listens: a reset")
                    .isInstanceOf(ConnectException.class);
        }
        try (SilentPort silent = SilentPort.open(address);
                Socket early = new Socket()) {
            assertThatThrownBy(() -> early.connect(address, 300))
                    .as("the peer's early SYN waits, as if lost on the way")
                    .isInstanceOf(SocketTimeoutException.class);
        }
    }
}
