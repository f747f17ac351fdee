package io.traverse.hub.metrics;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * Connection set-ups this hub passed on, by the module that made them: a routed connection's
 * OPEN frame, and the side requests with which the reverse and splice modules arrange theirs.
 * Direct connections never reach a hub; long-poll sessions are counted where they are held.
 * Thread-safe.
 */
final class ModuleSetUps {
    static final String ROUTED = "routed";
    private static final Map<String, String> MODULE_OF_SERVICE =
            Map.of("traverse.reverse", "reverse", "traverse.splice", "splice");

    private final Map<String, LongAdder> counts = new LinkedHashMap<>();

    ModuleSetUps() {
        counts.put(ROUTED, new LongAdder());
        counts.put("reverse", new LongAdder());
        counts.put("splice", new LongAdder());
    }

    /** The modules counted, in display order. */
    Iterable<String> modules() {
        return counts.keySet();
    }

    LongAdder counter(String module) {
        return counts.get(module);
    }

    void routedOpen() {
        counts.get(ROUTED).increment();
    }

    /** A side request for {@code service}: counted if a module arranges connections through it. */
    void sideRequest(String service) {
        String module = MODULE_OF_SERVICE.get(service);
        if (module != null) {
            counts.get(module).increment();
        }
    }

    Map<String, Long> snapshot() {
        Map<String, Long> out = new LinkedHashMap<>();
        counts.forEach((module, count) -> out.put(module, count.sum()));
        return out;
    }
}
