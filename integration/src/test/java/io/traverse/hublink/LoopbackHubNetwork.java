package io.traverse.hublink;

import static org.awaitility.Awaitility.await;

import io.traverse.Traverse;
import io.traverse.TraverseConfig;
import io.traverse.hub.Hub;
import io.traverse.hub.HubConfig;
import io.traverse.identity.NodeId;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Real hubs and nodes on loopback for the node-side integration tests; everything started here
 * is closed by {@link #close()}, newest first, also when a test fails.
 */
final class LoopbackHubNetwork implements AutoCloseable {
    static final String TOKEN = "integration-token";
    private final List<AutoCloseable> started = new ArrayList<>();
    /** Daemon threads for a test's own work (serving, writing while reading); stopped by {@link #close()}. */
    private final java.util.concurrent.ExecutorService threads =
            java.util.concurrent.Executors.newCachedThreadPool(r -> {
                Thread t = new Thread(r, "hub-network-test");
                t.setDaemon(true);
                return t;
            });

    java.util.concurrent.ExecutorService threads() {
        return threads;
    }

    /** A hub on 127.0.0.1 with an ephemeral port, no HTTP, dialling the given peers. */
    Hub hub(String name, Hub... peers) throws Exception {
        return hub(name, true, peers);
    }

    /**
     * A hub that advertises no address, so that only the hubs it dials link with it: hubs started
     * one after the other, each dialling the previous, form a line rather than a mesh.
     */
    Hub lineHub(String name, Hub... peers) throws Exception {
        return hub(name, false, peers);
    }

    /** Like {@link #hub(String, Hub...)}, with its HTTP endpoint (metrics, status, dashboard) on an ephemeral port. */
    Hub hubWithHttp(String name, Hub... peers) throws Exception {
        return hub(name, true, 0, peers);
    }

    /** Like {@link #hub(String, Hub...)}, with settings of the test's own on top (limits, say). */
    Hub hub(String name, java.util.function.Consumer<HubConfig.Builder> customise, Hub... peers) throws Exception {
        return hub(name, true, -1, customise, peers);
    }

    private Hub hub(String name, boolean advertised, Hub... peers) throws Exception {
        return hub(name, advertised, -1, peers);
    }

    private Hub hub(String name, boolean advertised, int httpPort, Hub... peers) throws Exception {
        return hub(name, advertised, httpPort, b -> {}, peers);
    }

    private Hub hub(
            String name,
            boolean advertised,
            int httpPort,
            java.util.function.Consumer<HubConfig.Builder> customise,
            Hub... peers)
            throws Exception {
        HubConfig.Builder b = HubConfig.builder()
                .bindAddress("127.0.0.1")
                .port(0)
                .httpPort(httpPort)
                .name(name)
                .token(TOKEN)
                .keepaliveInterval(Duration.ofMillis(300))
                .gossipRefreshInterval(Duration.ofSeconds(1))
                .hubExpiry(Duration.ofSeconds(3))
                .redial(Duration.ofMillis(100), Duration.ofSeconds(1));
        if (!advertised) {
            b.advertisedAddresses(List.of());
        }
        for (Hub peer : peers) {
            b.peer(address(peer).getHostString() + ":" + address(peer).getPort());
        }
        customise.accept(b);
        Hub hub = Hub.start(b.build());
        started.add(hub);
        return hub;
    }

    /** {@code count} hubs in a line, each dialling the one before: frames from the first to the last cross all of them. */
    List<Hub> line(String prefix, int count) throws Exception {
        List<Hub> line = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            line.add(i == 0 ? lineHub(prefix + i) : lineHub(prefix + i, line.get(i - 1)));
        }
        return line;
    }

    /** Waits until the client's hub knows where the server's node is (gossip across the hubs). */
    static void awaitRoute(Traverse client, Traverse server) {
        NodeId serverId = server.identity().id().orElseThrow();
        await().atMost(Duration.ofSeconds(15))
                .pollInterval(Duration.ofMillis(50))
                .ignoreExceptions()
                .until(() -> client.hubDirectory()
                        .locateNode(serverId)
                        .get(5, TimeUnit.SECONDS)
                        .isPresent());
    }

    static InetSocketAddress address(Hub hub) {
        return hub.linkAddress();
    }

    static NodeId id(Hub hub) {
        return hub.id();
    }

    /** A node on 127.0.0.1 linked (in the background) to the given hubs, with the shared token. */
    Traverse node(Hub... hubs) throws Exception {
        return node(config(hubs).build());
    }

    Traverse node(TraverseConfig config) throws Exception {
        Traverse node = Traverse.start(config);
        started.add(node);
        return node;
    }

    static TraverseConfig.Builder config(Hub... hubs) {
        return TraverseConfig.builder()
                .bind("127.0.0.1")
                .token(TOKEN)
                .discovery(false)
                .hubs(Arrays.stream(hubs).map(LoopbackHubNetwork::address).toList())
                .hubKeepalive(Duration.ofMillis(200))
                .hubTimeout(Duration.ofSeconds(5));
    }

    /** Registers something else to close at the end. */
    <T extends AutoCloseable> T closeLater(T resource) {
        started.add(resource);
        return resource;
    }

    @Override
    public void close() throws Exception {
        threads.shutdownNow();
        Exception first = null;
        for (int i = started.size() - 1; i >= 0; i--) {
            try {
                started.get(i).close();
            } catch (Exception e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
