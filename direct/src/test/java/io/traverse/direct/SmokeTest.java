package io.traverse.direct;

import static org.assertj.core.api.Assertions.assertThat;

import io.traverse.Traverse;
import io.traverse.TraverseConfig;
import io.traverse.TraverseServerSocket;
import java.net.ServerSocket;
import java.net.Socket;
import org.junit.jupiter.api.Test;

class SmokeTest {
    @Test
    void connectsAndEchoes() throws Exception {
        try (Traverse a = Traverse.start(TraverseConfig.builder().bind("127.0.0.1").build());
                Traverse b = Traverse.start(TraverseConfig.builder().bind("127.0.0.1").build())) {
            TraverseServerSocket server = b.serverSocketFactory().createServerSocket(5000);
            Thread t = new Thread(() -> {
                try (Socket s = server.accept()) {
                    s.getOutputStream().write(s.getInputStream().read() + 1);
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            t.start();
            System.out.println(server.getLocalSocketAddress());
            try (Socket s = a.socketFactory().createSocket(server.virtualAddress().getHostString(), 5000)) {
                s.getOutputStream().write(41);
                assertThat(s.getInputStream().read()).isEqualTo(42);
                System.out.println(a.connectionInfo(s));
            }
            t.join();
        }
    }
}
