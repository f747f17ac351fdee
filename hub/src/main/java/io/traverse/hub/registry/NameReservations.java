package io.traverse.hub.registry;

import io.traverse.identity.NodeId;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Names kept for a node whose link to this hub went. A node id is the digest of the node's key,
 * so a name belongs to a key: a node that fails over or restarts with its key must find its names
 * still its own, not taken by whoever asked first while it was away. Each reservation lasts a
 * fixed time from the link's end; the node takes the name back by binding it again (at this hub
 * or another), and nobody else can meanwhile. State loop only.
 */
public final class NameReservations {
    /** A name held for {@code holder} until {@code untilNanos} ({@link System#nanoTime()}). */
    public record Reservation(NodeId holder, long untilNanos) {}

    private final long holdNanos;
    private final Map<String, Reservation> byName = new LinkedHashMap<>();

    /** @param hold how long a name stays reserved; zero: names are free as soon as their node leaves */
    public NameReservations(Duration hold) {
        this.holdNanos = hold.toNanos();
    }

    public boolean enabled() {
        return holdNanos > 0;
    }

    public Duration hold() {
        return Duration.ofNanos(holdNanos);
    }

    /** Keeps a canonical name for its node, which just left, from {@code nowNanos} on. */
    public void reserve(String name, NodeId holder, long nowNanos) {
        byName.put(name, new Reservation(holder, nowNanos + holdNanos));
    }

    /** The reservation of a canonical name, or null. */
    public Reservation get(String name) {
        return byName.get(name);
    }

    public void remove(String name) {
        byName.remove(name);
    }

    /** Every reservation, by canonical name, oldest first. */
    public Map<String, Reservation> all() {
        return Collections.unmodifiableMap(byName);
    }

    /** Ends the reservations whose time is up and returns their names. */
    public List<Map.Entry<String, Reservation>> expire(long nowNanos) {
        List<Map.Entry<String, Reservation>> ended = new ArrayList<>();
        for (Iterator<Map.Entry<String, Reservation>> it = byName.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<String, Reservation> e = it.next();
            if (nowNanos - e.getValue().untilNanos() >= 0) {
                ended.add(Map.entry(e.getKey(), e.getValue()));
                it.remove();
            }
        }
        return ended;
    }
}
