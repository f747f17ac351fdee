package io.traverse.hub.routing;

import io.traverse.identity.NodeId;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * The routing graph kept up to date one neighbour list at a time, for a hub that recomputes its
 * routes many times a second while a large network forms. Each known hub has a small index, and
 * each edge (two hubs listing each other) is kept in int adjacency arrays as lists arrive, so that
 * a route computation is a breadth-first search over arrays instead of hash lookups per listed
 * link, and a computation that finds the same routes hands back the same table. Not thread-safe:
 * the hub's state loop owns it.
 */
public final class HubTopology {
    private final NodeId self;
    private final Map<NodeId, Integer> indexOf = new HashMap<>();
    /** Each hub's neighbours as it lists them (immutable sets), by id: what {@link HubGraph} is made of. */
    private final Map<NodeId, Set<NodeId>> listed = new HashMap<>();

    private NodeId[] ids = new NodeId[16];
    private int[][] adjacent = new int[16][];
    private int[] degree = new int[16];
    private int[] freeIndices = new int[16];
    private int freeCount;
    private int highWater;
    /** Moves when an edge is added or removed (a hub without edges changes no route). */
    private long version;

    private long computedVersion = -1;
    private HubRoutingTable table;
    private int[] hopsByIndex = new int[0];
    private int[] nextHopByIndex = new int[0];

    // Work arrays of the search, kept between computations.
    private int[] queue = new int[16];
    private int[] distance = new int[16];
    private int[] firstHop = new int[16];
    private int[] seenInRound = new int[16];
    private int round;

    public HubTopology(NodeId self) {
        this.self = self;
        list(self, Set.of());
    }

    /**
     * Records the neighbours a hub lists now ({@code null}: the hub is forgotten). For this hub, its
     * live links.
     *
     * @param neighbours an immutable set
     * @return whether an edge appeared or went (a list that adds only hubs not listing it back changes none)
     */
    public boolean list(NodeId hub, Set<NodeId> neighbours) {
        Integer known = indexOf.get(hub);
        if (known == null && neighbours == null) {
            return false;
        }
        int a = known == null ? allocate(hub) : known;
        Set<NodeId> before = listed.getOrDefault(hub, Set.of());
        Set<NodeId> after = neighbours == null ? Set.of() : neighbours;
        boolean changed = false;
        for (NodeId lost : before) {
            Integer b = indexOf.get(lost);
            if (!after.contains(lost) && b != null && b != a && listed.get(lost).contains(hub)) {
                unlink(a, b);
                unlink(b, a);
                changed = true;
            }
        }
        for (NodeId gained : after) {
            Integer b = indexOf.get(gained);
            if (!before.contains(gained)
                    && b != null
                    && b != a
                    && listed.get(gained).contains(hub)) {
                link(a, b);
                link(b, a);
                changed = true;
            }
        }
        if (neighbours == null) {
            listed.remove(hub);
            release(hub, a);
        } else {
            listed.put(hub, neighbours);
        }
        if (changed) {
            version++;
        }
        return changed;
    }

    /**
     * The shortest next hop to every hub this one reaches, by hop count; of several shortest paths,
     * the one through the neighbour with the lowest id (as {@link HubRoutingTable#compute}). The
     * same table as last time when no edge changed, and the same routes map when the routes did not.
     */
    public HubRoutingTable routes() {
        if (table != null && computedVersion == version) {
            return table;
        }
        int s = indexOf.get(self);
        ensureWorkCapacity();
        round++;
        // Ranks of this hub's neighbours by id: a hub's next hop is the lowest rank among its shortest paths.
        int[] neighbours = Arrays.copyOf(adjacent[s], degree[s]);
        Integer[] byId = new Integer[neighbours.length];
        for (int i = 0; i < neighbours.length; i++) {
            byId[i] = neighbours[i];
        }
        Arrays.sort(byId, (x, y) -> ids[x].compareTo(ids[y]));
        int head = 0;
        int tail = 0;
        seenInRound[s] = round;
        distance[s] = 0;
        for (int rank = 0; rank < byId.length; rank++) {
            int n = byId[rank];
            seenInRound[n] = round;
            distance[n] = 1;
            firstHop[n] = rank;
            queue[tail++] = n;
        }
        while (head < tail) {
            int u = queue[head++];
            int d = distance[u] + 1;
            int hop = firstHop[u];
            int[] edges = adjacent[u];
            for (int k = degree[u] - 1; k >= 0; k--) {
                int w = edges[k];
                if (seenInRound[w] != round) {
                    seenInRound[w] = round;
                    distance[w] = d;
                    firstHop[w] = hop;
                    queue[tail++] = w;
                } else if (distance[w] == d && hop < firstHop[w]) {
                    firstHop[w] = hop; // final before w is dequeued: every hub at distance d - 1 comes first
                }
            }
        }
        int[] hops = new int[highWater];
        int[] next = new int[highWater];
        for (int i = 0; i < tail; i++) {
            int w = queue[i];
            hops[w] = distance[w];
            next[w] = byId[firstHop[w]];
        }
        HubGraph graph = HubGraph.ofListed(self, listed.get(self), listed);
        if (table != null && Arrays.equals(hops, hopsByIndex) && Arrays.equals(next, nextHopByIndex) && !indicesMoved) {
            table = HubRoutingTable.of(self, table.routes(), graph);
        } else {
            Map<NodeId, HubRoutingTable.Route> routes = new HashMap<>(tail * 2);
            for (int i = 0; i < tail; i++) {
                int w = queue[i];
                routes.put(ids[w], new HubRoutingTable.Route(ids[w], ids[next[w]], hops[w]));
            }
            table = HubRoutingTable.of(self, Collections.unmodifiableMap(routes), graph);
        }
        hopsByIndex = hops;
        nextHopByIndex = next;
        indicesMoved = false;
        computedVersion = version;
        return table;
    }

    /** Whether an index was given out or taken back since the last computation (equal arrays may then name other hubs). */
    private boolean indicesMoved;

    private int allocate(NodeId hub) {
        int a;
        if (freeCount > 0) {
            a = freeIndices[--freeCount];
        } else {
            a = highWater++;
            if (a == ids.length) {
                int capacity = ids.length * 2;
                ids = Arrays.copyOf(ids, capacity);
                adjacent = Arrays.copyOf(adjacent, capacity);
                degree = Arrays.copyOf(degree, capacity);
            }
        }
        ids[a] = hub;
        adjacent[a] = new int[4];
        degree[a] = 0;
        indexOf.put(hub, a);
        indicesMoved = true;
        return a;
    }

    private void release(NodeId hub, int a) {
        indexOf.remove(hub);
        ids[a] = null;
        adjacent[a] = null;
        degree[a] = 0;
        if (freeCount == freeIndices.length) {
            freeIndices = Arrays.copyOf(freeIndices, freeCount * 2);
        }
        freeIndices[freeCount++] = a;
        indicesMoved = true;
    }

    private void link(int from, int to) {
        if (degree[from] == adjacent[from].length) {
            adjacent[from] = Arrays.copyOf(adjacent[from], degree[from] * 2);
        }
        adjacent[from][degree[from]++] = to;
    }

    private void unlink(int from, int to) {
        int[] edges = adjacent[from];
        for (int k = 0; k < degree[from]; k++) {
            if (edges[k] == to) {
                edges[k] = edges[--degree[from]];
                return;
            }
        }
    }

    private void ensureWorkCapacity() {
        if (queue.length < highWater) {
            int capacity = Math.max(highWater, queue.length * 2);
            queue = new int[capacity];
            distance = new int[capacity];
            firstHop = new int[capacity];
            seenInRound = new int[capacity];
            round = 0;
        }
    }
}
