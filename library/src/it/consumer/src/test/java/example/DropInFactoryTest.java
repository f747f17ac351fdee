package example;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.traverse.ConnectionInfo;
import io.traverse.Traverse;
import io.traverse.TraverseServerSocketFactory;
import io.traverse.TraverseSocketFactory;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.security.MessageDigest;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import javax.net.ServerSocketFactory;
import javax.net.SocketFactory;
import org.junit.jupiter.api.Test;

/**
 * The README's library example, compiled against the installed artifacts only: the default
 * factories, a connection with data checked end to end, and the default node's answer to which
 * module made it. The modules come from the one dependency on io.traverse:traverse.
 */
class DropInFactoryTest {
    @Test
    void connectsThroughTheDefaultNodeAndSaysHow() throws Exception {
        ServerSocketFactory servers = TraverseServerSocketFactory.getDefault();
        SocketFactory sockets = TraverseSocketFactory.getDefault();
        byte[] payload = new byte[1 << 20];
        new Random(42).nextBytes(payload);
        try (ServerSocket server = servers.createServerSocket(0)) {
            CompletableFuture<byte[]> echoed = CompletableFuture.supplyAsync(() -> {
                try (Socket accepted = server.accept()) {
                    byte[] received = accepted.getInputStream().readAllBytes();
                    accepted.getOutputStream().write(MessageDigest.getInstance("SHA-256").digest(received));
                    accepted.shutdownOutput();
                    return received;
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            String host = server.getLocalSocketAddress().toString();
            try (Socket socket = sockets.createSocket()) {
                socket.connect(server.getLocalSocketAddress(), 10_000);
                try (OutputStream out = socket.getOutputStream()) {
                    out.write(payload);
                    socket.shutdownOutput();
                    InputStream in = socket.getInputStream();
                    ByteArrayOutputStream digest = new ByteArrayOutputStream();
                    in.transferTo(digest);
                    assertArrayEquals(MessageDigest.getInstance("SHA-256").digest(payload), digest.toByteArray(), host);
                }
                ConnectionInfo info = Traverse.getDefault().connectionInfo(socket).orElseThrow();
                assertEquals("direct", info.module());
            }
            assertEquals(payload.length, echoed.get().length);
        }
        assertTrue(Traverse.getDefault().modules().containsAll(
                java.util.List.of("direct", "reverse", "splice", "routed")), () -> "modules loaded: " + safeModules());
    }

    private static String safeModules() {
        try {
            return String.valueOf(Traverse.getDefault().modules());
        } catch (Exception e) {
            return e.toString();
        }
    }
}
