package io.traverse.hublink;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The names this node has bound (name → virtual port): what it registers again on every new hub
 * link, so that names survive a hub failover. A name is <em>reserved</em> while its first
 * binding is on its way and <em>confirmed</em> once the hub network accepted it; only confirmed
 * names are registered again (a reserved one is still being sent by its own request).
 * Thread-safe.
 */
final class NameRegistrations {
    private record Entry(int port, boolean confirmed) {}

    private final Map<String, Entry> names = new LinkedHashMap<>();

    /** Reserves a name for a port; false if this node has it already. */
    synchronized boolean reserve(String name, int port) {
        return names.putIfAbsent(name, new Entry(port, false)) == null;
    }

    /** The hub network accepted the name; false if it was released meanwhile. */
    synchronized boolean confirm(String name, int port) {
        return names.replace(name, new Entry(port, false), new Entry(port, true));
    }

    synchronized Integer portOf(String name) {
        Entry e = names.get(name);
        return e == null ? null : e.port();
    }

    /** Forgets a name (released, or refused by the hub network); false if this node did not have it for that port. */
    synchronized boolean remove(String name, int port) {
        return names.remove(name, new Entry(port, true)) || names.remove(name, new Entry(port, false));
    }

    /** The confirmed names and their ports. */
    synchronized Map<String, Integer> confirmed() {
        Map<String, Integer> out = new LinkedHashMap<>();
        names.forEach((name, e) -> {
            if (e.confirmed()) {
                out.put(name, e.port());
            }
        });
        return out;
    }
}
