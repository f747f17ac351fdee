package io.traverse.bench.load;

import java.util.HashMap;
import java.util.Map;

/** One {@code STAT name=value ...} line of a child, by name. */
final class Stat {
    static final Stat EMPTY = new Stat(Map.of());
    private final Map<String, String> values;

    private Stat(Map<String, String> values) {
        this.values = values;
    }

    static Stat parse(String line) {
        Map<String, String> v = new HashMap<>();
        for (String field : line.substring(5).split(" ")) {
            int eq = field.indexOf('=');
            if (eq > 0) {
                v.put(field.substring(0, eq), field.substring(eq + 1));
            }
        }
        return new Stat(v);
    }

    long get(String name) {
        String v = values.get(name);
        return v == null ? 0 : Long.parseLong(v);
    }

    String text(String name) {
        return values.getOrDefault(name, "-");
    }

    /** A {@code key:count,...} field as a map ("-" is empty). */
    Map<String, Long> counts(String name) {
        Map<String, Long> m = new HashMap<>();
        String v = text(name);
        if (!v.equals("-")) {
            for (String pair : v.split(",")) {
                int colon = pair.lastIndexOf(':');
                m.put(pair.substring(0, colon), Long.parseLong(pair.substring(colon + 1)));
            }
        }
        return m;
    }

    long failures() {
        return counts("failures").values().stream().mapToLong(Long::longValue).sum();
    }
}
