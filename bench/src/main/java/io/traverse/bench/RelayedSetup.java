package io.traverse.bench;

import io.traverse.Traverse;
import io.traverse.TraverseConfig;
import io.traverse.TraverseServerSocket;
import io.traverse.VirtualSocketAddress;
import io.traverse.hub.Hub;
import io.traverse.hub.HubConfig;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * What end-to-end encryption costs a relayed connection's setup, through one hub on loopback, until
 * the server's first byte arrives: a relayed connection in clear ({@code traverse.encrypt=none} at
 * both ends), a sealed one whose key agreement resumes a secret the two nodes keep, and a sealed
 * one between two nodes that never met (a full agreement: X25519 and an Ed25519 signature each way).
 * The clear and resumed contenders alternate in rounds from one client node each; first contacts
 * are fresh client nodes, each one's first connection (after its hub link is up), against fresh
 * nodes in clear as their baseline.
 *
 * <pre>java -cp bench/target/benchmarks.jar io.traverse.bench.RelayedSetup [connects] [first contacts]</pre>
 */
public final class RelayedSetup {
    private static final String TOKEN = "bench-relayed-setup";
    private static final int WARM_UP = 200;
    private static final int ROUNDS = 5;
    private static final int PORT = 4000;

    private RelayedSetup() {}

    public static void main(String[] args) throws Exception {
        int connects = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        int firstContacts = args.length > 1 ? Integer.parseInt(args[1]) : 40;
        try (Hub hub = Hub.start(HubConfig.builder()
                .bindAddress("127.0.0.1")
                .port(0)
                .httpPort(-1)
                .discoveryPort(-1)
                .token(TOKEN)
                .build())) {
            InetSocketAddress at =
                    new InetSocketAddress("127.0.0.1", hub.linkAddress().getPort());
            List<AutoCloseable> open = new ArrayList<>();
            try {
                VirtualSocketAddress sealedServer = server(node(at, true), open);
                VirtualSocketAddress clearServer = server(node(at, false), open);
                Traverse sealedClient = node(at, true);
                Traverse clearClient = node(at, false);
                open.add(sealedClient);
                open.add(clearClient);
                for (int i = 0; i < WARM_UP; i++) {
                    timeConnect(sealedClient, sealedServer);
                    timeConnect(clearClient, clearServer);
                }
                double[] sealed = new double[connects];
                double[] clear = new double[connects];
                int perRound = connects / ROUNDS;
                for (int round = 0; round < ROUNDS; round++) {
                    boolean sealedFirst = round % 2 == 0;
                    for (int i = round * perRound; i < (round + 1) * perRound; i++) {
                        if (sealedFirst) {
                            sealed[i] = timeConnect(sealedClient, sealedServer);
                            clear[i] = timeConnect(clearClient, clearServer);
                        } else {
                            clear[i] = timeConnect(clearClient, clearServer);
                            sealed[i] = timeConnect(sealedClient, sealedServer);
                        }
                    }
                }
                int measured = perRound * ROUNDS;
                sealed = Arrays.copyOf(sealed, measured);
                clear = Arrays.copyOf(clear, measured);
                double[] fullSealed = new double[firstContacts];
                double[] fullClear = new double[firstContacts];
                for (int i = 0; i < firstContacts; i++) {
                    fullSealed[i] = firstConnect(at, true, sealedServer);
                    fullClear[i] = firstConnect(at, false, clearServer);
                }
                System.out.printf(
                        Locale.ROOT, "relayed setup until the server's first byte, one hub on loopback (µs):%n");
                print("in clear (traverse.encrypt=none)", clear);
                print("sealed, resumed agreement", sealed);
                print("first contact, in clear", fullClear);
                print("first contact, sealed (full agreement)", fullSealed);
            } finally {
                for (int i = open.size() - 1; i >= 0; i--) {
                    open.get(i).close();
                }
            }
        }
    }

    private static Traverse node(InetSocketAddress hub, boolean sealed) throws IOException, InterruptedException {
        Traverse node = Traverse.start(TraverseConfig.builder()
                .bind("127.0.0.1")
                .token(TOKEN)
                .discovery(false)
                .hubs(List.of(hub))
                .modules("routed")
                .set("traverse.encrypt", sealed ? "relayed" : "none")
                .build());
        if (!node.awaitHubLink(Duration.ofSeconds(10))) {
            node.close();
            throw new IllegalStateException("no hub link within 10 s");
        }
        return node;
    }

    /** A listener that writes one byte to every connection and closes it. */
    private static VirtualSocketAddress server(Traverse node, List<AutoCloseable> open) throws IOException {
        open.add(node);
        TraverseServerSocket listener = node.serverSocketFactory().createServerSocket(PORT, 1000);
        open.add(listener);
        Thread acceptor = new Thread(
                () -> {
                    while (!listener.isClosed()) {
                        try (Socket s = listener.accept()) {
                            s.getOutputStream().write(1);
                        } catch (IOException e) {
                            return; // closed
                        }
                    }
                },
                "relayed-setup-acceptor");
        acceptor.setDaemon(true);
        acceptor.start();
        return listener.virtualAddress();
    }

    /** Microseconds from {@code createSocket} to the server's byte. */
    private static double timeConnect(Traverse client, VirtualSocketAddress target) throws IOException {
        long start = System.nanoTime();
        try (Socket s = client.socketFactory().createSocket(target.getHostString(), target.getPort())) {
            InputStream in = s.getInputStream();
            if (in.read() != 1) {
                throw new IOException("the server's byte did not come");
            }
            return (System.nanoTime() - start) / 1e3;
        }
    }

    /** A fresh node's first connection, after its hub link is up. */
    private static double firstConnect(InetSocketAddress hub, boolean sealed, VirtualSocketAddress target)
            throws IOException, InterruptedException {
        try (Traverse fresh = node(hub, sealed)) {
            return timeConnect(fresh, target);
        }
    }

    private static void print(String what, double[] micros) {
        double[] sorted = micros.clone();
        Arrays.sort(sorted);
        System.out.printf(
                Locale.ROOT,
                "  %-40s median %8.1f  p90 %8.1f  min %8.1f  (%d)%n",
                what,
                sorted[sorted.length / 2],
                sorted[sorted.length * 9 / 10],
                sorted[0],
                sorted.length);
    }
}
