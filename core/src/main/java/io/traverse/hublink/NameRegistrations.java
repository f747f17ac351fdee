package io.traverse.hublink;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The names this node has bound (name → virtual port): what it re-registers on every new hub
 * link, so that names survive a hub failover. Thread-safe.
 */
final class NameRegistrations {
    private final Map<String, Integer> names = new LinkedHashMap<>();

    /** Reserves a name for a port; false if this node has it already. */
    synchronized boolean reserve(String name, int port) {
        return names.putIfAbsent(name, port) == null;
    }

    synchronized Integer portOf(String name) {
        return names.get(name);
    }

    /** Forgets a name (released, or refused by the hub network). */
    synchronized boolean remove(String name, int port) {
        return names.remove(name, port);
    }

    synchronized Map<String, Integer> snapshot() {
        return Map.copyOf(names);
    }
}
