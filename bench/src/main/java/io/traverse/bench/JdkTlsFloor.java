package io.traverse.bench;

import io.traverse.security.IdentityKey;
import io.traverse.security.LinkTls;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Arrays;
import java.util.Locale;
import javax.net.ssl.SSLSocket;

/**
 * The floor under {@code traverse.encrypt=all}: the JDK's TLS 1.3 with the nodes' certificates
 * ({@link LinkTls}) between two plain loopback sockets in one JVM, no Traverse around it. Each
 * connection is connect, TLS handshake (with the peer's key checked), the server's first byte;
 * with {@code TCP_NODELAY}, as Traverse sets it. Rounds alternate a resumed handshake (the
 * client's context kept) with a full one (a fresh client context).
 *
 * <pre>
 * options: --rounds N (5)  --connects N (300 per round, half of each)
 * </pre>
 */
public final class JdkTlsFloor {
    private JdkTlsFloor() {}

    public static void main(String[] args) throws Exception {
        int rounds = 5;
        int connects = 300;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--connects" -> connects = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("usage: JdkTlsFloor [--rounds N] [--connects N]");
            }
        }
        IdentityKey serverKey = IdentityKey.generate();
        IdentityKey clientKey = IdentityKey.generate();
        LinkTls server = LinkTls.of(serverKey).accepting();
        LinkTls kept = LinkTls.of(clientKey);
        try (ServerSocket listening = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Loopback.serverThread("tls-floor-acceptor", () -> {
                while (!listening.isClosed()) {
                    try (Socket s = listening.accept()) {
                        s.setTcpNoDelay(true);
                        SSLSocket tls = server.acceptingSocket(s);
                        LinkTls.handshake(tls, clientKey.id(), 5_000);
                        tls.getOutputStream().write(1);
                        tls.close();
                    } catch (IOException e) {
                        // closing, or a client gone early
                    }
                }
            });
            System.out.printf(
                    Locale.ROOT,
                    "JdkTlsFloor: %d rounds of %d connects; CPUs visible: %d; %s%n",
                    rounds,
                    connects,
                    Runtime.getRuntime().availableProcessors(),
                    System.getProperty("java.vm.version"));
            for (int r = 0; r < rounds; r++) {
                long[] resumed = new long[connects / 2];
                long[] full = new long[connects / 2];
                for (int i = 0; i < connects / 2; i++) {
                    resumed[i] = timeOne(kept, serverKey, listening.getLocalPort());
                    full[i] = timeOne(LinkTls.of(clientKey), serverKey, listening.getLocalPort());
                }
                Arrays.sort(resumed);
                Arrays.sort(full);
                System.out.printf(
                        Locale.ROOT,
                        "round %d/%d  resumed %.0f us (p90 %.0f)  full %.0f us (p90 %.0f)%n",
                        r + 1,
                        rounds,
                        resumed[resumed.length / 2] / 1e3,
                        resumed[resumed.length * 9 / 10] / 1e3,
                        full[full.length / 2] / 1e3,
                        full[full.length * 9 / 10] / 1e3);
            }
        }
    }

    /** Connect, TLS handshake, the server's first byte, in nanoseconds (a fresh context: not its making). */
    private static long timeOne(LinkTls client, IdentityKey serverKey, int port) throws IOException {
        long start = System.nanoTime();
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.setTcpNoDelay(true);
            SSLSocket tls = client.connectingSocket(s, serverKey.id());
            LinkTls.handshake(tls, serverKey.id(), 5_000);
            if (tls.getInputStream().read() != 1) {
                throw new IOException("the server's first byte did not come");
            }
            long took = System.nanoTime() - start;
            tls.close();
            return took;
        }
    }
}
