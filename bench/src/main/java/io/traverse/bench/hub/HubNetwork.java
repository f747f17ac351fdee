package io.traverse.bench.hub;

import io.traverse.hub.Hub;
import io.traverse.hub.HubConfig;
import io.traverse.hub.HubRouting;
import io.traverse.hub.HubStatus;
import io.traverse.identity.NodeId;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * Hubs in this JVM on 127.0.0.1, linked as a spanning tree of a chosen shape (hub {@code i} dials
 * its parent) to start with; they then dial every hub they learn of.
 */
final class HubNetwork implements AutoCloseable {
    enum Shape {
        LINE,
        BINARY_TREE,
        RANDOM_TREE
    }

    static final String TOKEN = "bench-network-secret";

    final List<Hub> hubs = new ArrayList<>();
    final int[] parent;

    HubNetwork(int size, Shape shape, Duration keepalive, long seed) throws IOException {
        parent = new int[size];
        Random random = new Random(seed);
        for (int i = 0; i < size; i++) {
            parent[i] = i == 0
                    ? -1
                    : switch (shape) {
                        case LINE -> i - 1;
                        case BINARY_TREE -> (i - 1) / 2;
                        case RANDOM_TREE -> random.nextInt(i);
                    };
        }
        try {
            for (int i = 0; i < size; i++) {
                HubConfig.Builder config = HubConfig.builder()
                        .bindAddress("127.0.0.1")
                        .port(0)
                        .httpPort(-1)
                        .name("bench-hub-" + i)
                        .token(TOKEN)
                        .keepaliveInterval(keepalive)
                        .ioThreads(1);
                if (parent[i] >= 0) {
                    config.peer("127.0.0.1:" + hubs.get(parent[i]).linkAddress().getPort());
                }
                hubs.add(Hub.start(config.build()));
            }
        } catch (IOException | RuntimeException e) {
            close();
            throw e;
        }
    }

    int size() {
        return hubs.size();
    }

    /** The live hub links as both ends report them: each hub's set of peer ids. */
    Map<NodeId, Set<NodeId>> links(List<HubRouting> status) {
        Map<NodeId, Set<NodeId>> links = new HashMap<>();
        for (HubRouting s : status) {
            links.put(s.hubId(), s.linkedHubs());
        }
        return links;
    }

    /**
     * Whether every hub routes to every other hub with the hop count of a shortest path over the
     * links both ends report. Hubs dial every hub they learn of, so the links grow beyond the
     * configured tree; routes are checked against the links as they are.
     */
    boolean converged(List<HubRouting> status) {
        Map<NodeId, Set<NodeId>> links = links(status);
        for (HubRouting s : status) {
            if (s.routes().size() < size() - 1) {
                return false;
            }
            Map<NodeId, Integer> distance = shortestHops(s.hubId(), links);
            if (distance.size() < size()) {
                return false;
            }
            for (Map.Entry<NodeId, Integer> d : distance.entrySet()) {
                if (d.getKey().equals(s.hubId())) {
                    continue;
                }
                HubStatus.RouteStatus route = s.routes().get(d.getKey());
                if (route == null || route.hops() != d.getValue()) {
                    return false;
                }
            }
        }
        return true;
    }

    private static Map<NodeId, Integer> shortestHops(NodeId from, Map<NodeId, Set<NodeId>> links) {
        Map<NodeId, Integer> distance = new HashMap<>();
        distance.put(from, 0);
        Deque<NodeId> queue = new ArrayDeque<>(List.of(from));
        while (!queue.isEmpty()) {
            NodeId u = queue.poll();
            for (NodeId v : links.getOrDefault(u, Set.of())) {
                // an edge counts only when both ends list it, as the hubs' routing does
                if (!distance.containsKey(v) && links.getOrDefault(v, Set.of()).contains(u)) {
                    distance.put(v, distance.get(u) + 1);
                    queue.add(v);
                }
            }
        }
        return distance;
    }

    /** How many hubs still have a route to {@code target}. */
    int hubsRoutingTo(List<HubRouting> status, NodeId target) {
        int n = 0;
        for (HubRouting s : status) {
            if (s.routes().containsKey(target)) {
                n++;
            }
        }
        return n;
    }

    /** Hub descriptions received and accepted as news, summed over all hubs. */
    long[] gossipReceivedAndAccepted() {
        long received = 0;
        long accepted = 0;
        for (Hub hub : hubs) {
            received += (long) hub.metrics()
                    .registry()
                    .get("traverse.hub.gossip.received")
                    .counter()
                    .count();
            accepted += (long) hub.metrics()
                    .registry()
                    .get("traverse.hub.gossip.accepted")
                    .counter()
                    .count();
        }
        return new long[] {received, accepted};
    }

    /** Each hub's links and routes. */
    List<HubRouting> routing() {
        List<HubRouting> all = new ArrayList<>(hubs.size());
        for (Hub hub : hubs) {
            all.add(hub.routing());
        }
        return all;
    }

    /**
     * Like {@link #routing()}, but null when a hub is too busy to answer within the API's 5 s (a
     * network of a hundred hubs forming on one core): the caller polls again.
     */
    List<HubRouting> routingOrNullIfBusy() {
        try {
            return routing();
        } catch (IllegalStateException e) {
            if (e.getCause() instanceof java.util.concurrent.TimeoutException) {
                return null;
            }
            throw e;
        }
    }

    @Override
    public void close() {
        for (Hub hub : hubs) {
            hub.close();
        }
    }
}
