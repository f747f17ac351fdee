package io.traverse.bench;

import io.traverse.Traverse;
import io.traverse.TraverseConfig;
import io.traverse.bench.hub.ChildHub;
import io.traverse.identity.NodeId;
import java.io.Closeable;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Hubs in a line, each a child JVM dialling the one before (no mesh), and routed-only nodes linked to them. */
final class HubLine implements Closeable {
    private static final String TOKEN = "bench-routed";
    private final List<ChildHub> hubs = new ArrayList<>();
    /** Closed before the hubs (an HTTP proxy a node links through). */
    private final List<Closeable> others = new ArrayList<>();
    /** The number of hubs in the line. */
    int size() {
        return hubs.size();
    }

    /** Nodes made from now on run their data links in TLS ({@code traverse.hub.datalink.tls}). */
    private boolean dataLinkTls;
    /** Nodes made from now on relay in clear ({@code traverse.encrypt=none}) rather than sealed end to end. */
    private boolean clear;

    private HubLine() {}

    static HubLine start(int count) throws IOException {
        HubLine line = new HubLine();
        try {
            for (int i = 0; i < count; i++) {
                List<String> peers =
                        i == 0 ? List.of() : List.of(line.hubs.get(i - 1).address());
                line.hubs.add(new ChildHub("bench-line-" + i, 1000, TOKEN, peers, "512m", false));
            }
            return line;
        } catch (IOException | RuntimeException e) {
            line.close();
            throw e;
        }
    }

    /** Nodes made from now on run their data links in TLS ({@code traverse.hub.datalink.tls=true}). */
    HubLine dataLinkTls(boolean on) {
        dataLinkTls = on;
        return this;
    }

    /** Nodes made from now on relay in clear ({@code traverse.encrypt=none}), not sealed end to end. */
    HubLine inClear(boolean on) {
        clear = on;
        return this;
    }

    /** A node on 127.0.0.1 that connects through the hubs only, linked to hub {@code index}. */
    Traverse routedNode(int index) throws IOException {
        return routedNode(index, true);
    }

    /** @param dataLink false: relayed frames travel on the hub link itself ({@code traverse.hub.datalink=false}) */
    Traverse routedNode(int index, boolean dataLink) throws IOException {
        return routedNode(index, dataLink, null);
    }

    /** @param httpProxy the node's hub link and data link go through this HTTP proxy ({@code traverse.http.proxy}); null: none */
    Traverse routedNode(int index, boolean dataLink, String httpProxy) throws IOException {
        return routedNode(index, dataLink, httpProxy, false);
    }

    /** @param longPoll the node's hub link is a long-poll session straight to the hub ({@code traverse.http.tunnel=longpoll}) */
    Traverse routedNode(int index, boolean dataLink, String httpProxy, boolean longPoll) throws IOException {
        TraverseConfig.Builder config = TraverseConfig.builder()
                .bind("127.0.0.1")
                .token(TOKEN)
                .discovery(false)
                .hubs(List.of(new java.net.InetSocketAddress(
                        "127.0.0.1", hubs.get(index).port())))
                .modules("routed")
                .hubDataLink(dataLink);
        if (dataLinkTls) {
            config.set("traverse.hub.datalink.tls", "true");
        }
        if (clear) {
            config.set("traverse.encrypt", "none");
        }
        if (longPoll) {
            config.set("traverse.http.tunnel", "longpoll");
        }
        if (httpProxy != null) {
            config.httpProxy(httpProxy).nonProxyHosts("nothing.invalid"); // loopback is a non-proxy host by default
        }
        Traverse node = Traverse.start(config.build());
        try {
            if (!node.awaitHubLink(Duration.ofSeconds(20))) {
                throw new IOException(
                        "node did not link to hub " + hubs.get(index).address());
            }
            return node;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            node.close();
            throw new IOException("interrupted");
        } catch (IOException | RuntimeException e) {
            node.close();
            throw e;
        }
    }

    /** Waits until the client's hub knows the server's node (gossip along the line). */
    void awaitRoute(Traverse client, Traverse server) throws IOException {
        NodeId target = server.identity().id().orElseThrow();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            try {
                if (client.hubDirectory()
                        .locateNode(target)
                        .get(5, TimeUnit.SECONDS)
                        .isPresent()) {
                    return;
                }
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted");
            } catch (Exception e) {
                // not yet
            }
        }
        throw new IOException("the client's hub never learned where node " + target + " is");
    }

    /** Closes {@code resource} with the line, before the hubs. */
    void closeLater(Closeable resource) {
        others.add(resource);
    }

    @Override
    public void close() {
        for (Closeable c : others) {
            Loopback.closeQuietly(c);
        }
        for (int i = hubs.size() - 1; i >= 0; i--) {
            try {
                hubs.get(i).close();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
