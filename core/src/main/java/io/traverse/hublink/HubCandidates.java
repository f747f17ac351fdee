package io.traverse.hublink;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * The hubs a node may link to, in the order to try them: configured ones ({@code traverse.hubs},
 * in their order), then hubs found by discovery, then hubs learned from the hub network (LOOKUP
 * HUBS). After a hub fails, the next round starts with the hub after it, so a node fails over to
 * another hub before it retries the one that just died. Bounded: at most {@link #MAX_LEARNED}
 * learned hubs are kept. Confined to the link's event loop.
 */
final class HubCandidates {
    static final int MAX_LEARNED = 64;

    private final List<InetSocketAddress> configured = new ArrayList<>();
    private final List<InetSocketAddress> discovered = new ArrayList<>();
    private final List<InetSocketAddress> learned = new ArrayList<>();
    private InetSocketAddress startAfter;

    void addConfigured(List<InetSocketAddress> hubs) {
        addNew(configured, hubs, Integer.MAX_VALUE);
    }

    void setDiscovered(List<InetSocketAddress> hubs) {
        discovered.clear();
        addNew(discovered, hubs, MAX_LEARNED);
    }

    /** Hubs the hub network told us about; replaces the earlier list (hubs that vanished are dropped). */
    void setLearned(List<InetSocketAddress> hubs) {
        learned.clear();
        addNew(learned, hubs, MAX_LEARNED);
    }

    /** The next round starts after this hub (it just failed or its link broke). */
    void failed(InetSocketAddress hub) {
        startAfter = hub;
    }

    boolean isEmpty() {
        return order().isEmpty();
    }

    /** Every candidate once, rotated so that the hub after the last failed one comes first. */
    List<InetSocketAddress> order() {
        List<InetSocketAddress> all = new ArrayList<>(configured);
        addNew(all, discovered, Integer.MAX_VALUE);
        addNew(all, learned, Integer.MAX_VALUE);
        int failedAt = startAfter == null ? -1 : indexOf(all, startAfter);
        if (failedAt < 0) {
            return all;
        }
        List<InetSocketAddress> rotated = new ArrayList<>(all.subList(failedAt + 1, all.size()));
        rotated.addAll(all.subList(0, failedAt + 1));
        return rotated;
    }

    private static void addNew(List<InetSocketAddress> into, List<InetSocketAddress> hubs, int max) {
        for (InetSocketAddress h : hubs) {
            if (into.size() >= max) {
                return;
            }
            if (indexOf(into, h) < 0) {
                into.add(h);
            }
        }
    }

    /** Unresolved and resolved forms of one host:port count as the same hub. */
    private static int indexOf(List<InetSocketAddress> list, InetSocketAddress hub) {
        for (int i = 0; i < list.size(); i++) {
            InetSocketAddress a = list.get(i);
            if (a.getPort() == hub.getPort() && a.getHostString().equalsIgnoreCase(hub.getHostString())) {
                return i;
            }
        }
        return -1;
    }
}
