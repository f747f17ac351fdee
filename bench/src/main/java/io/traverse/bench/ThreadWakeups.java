package io.traverse.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Context switches per thread of a process, from Linux's {@code /proc/PID/task/TID/status}: how
 * often each thread blocked and was woken (voluntary) or was preempted (involuntary). Threads are
 * grouped by name with digits replaced by {@code N}, so a pool's threads add up. Two snapshots'
 * difference, divided by the connections made between them, says which threads a connection wakes.
 */
final class ThreadWakeups {
    /** Switches by thread name: voluntary and involuntary. */
    record Counts(long voluntary, long involuntary) {
        Counts plus(Counts o) {
            return new Counts(voluntary + o.voluntary, involuntary + o.involuntary);
        }

        Counts minus(Counts o) {
            return new Counts(voluntary - o.voluntary, involuntary - o.involuntary);
        }
    }

    private ThreadWakeups() {}

    /** This moment's counts of {@code pid}'s threads; empty where /proc is not Linux's. */
    static Map<String, Counts> snapshot(long pid) {
        Map<String, Counts> out = new TreeMap<>();
        Path tasks = Path.of("/proc", Long.toString(pid), "task");
        try (Stream<Path> threads = Files.list(tasks)) {
            for (Path t : (Iterable<Path>) threads::iterator) {
                try {
                    String name = Files.readString(t.resolve("comm")).strip().replaceAll("[0-9]+", "N");
                    long voluntary = 0;
                    long involuntary = 0;
                    for (String line : Files.readAllLines(t.resolve("status"))) {
                        if (line.startsWith("voluntary_ctxt_switches:")) {
                            voluntary = Long.parseLong(
                                    line.substring(line.indexOf(':') + 1).strip());
                        } else if (line.startsWith("nonvoluntary_ctxt_switches:")) {
                            involuntary = Long.parseLong(
                                    line.substring(line.indexOf(':') + 1).strip());
                        }
                    }
                    out.merge(name, new Counts(voluntary, involuntary), Counts::plus);
                } catch (IOException | RuntimeException e) {
                    // the thread ended meanwhile
                }
            }
        } catch (IOException e) {
            return out;
        }
        return out;
    }

    /** {@code after - before} per thread name (threads that ended meanwhile are left out). */
    static Map<String, Counts> between(Map<String, Counts> before, Map<String, Counts> after) {
        Map<String, Counts> out = new TreeMap<>();
        after.forEach((name, a) -> out.put(name, a.minus(before.getOrDefault(name, new Counts(0, 0)))));
        return out;
    }

    /** Adds {@code more} into {@code total}. */
    static void add(Map<String, Counts> total, Map<String, Counts> more) {
        more.forEach((name, c) -> total.merge(name, c, Counts::plus));
    }

    /** One line per thread name with at least 0.05 switches per connection. */
    static String perConnection(Map<String, Counts> total, long connections) {
        StringBuilder out = new StringBuilder();
        double sum = 0;
        for (Map.Entry<String, Counts> e : total.entrySet()) {
            double v = (double) e.getValue().voluntary() / connections;
            double i = (double) e.getValue().involuntary() / connections;
            sum += v;
            if (v + i >= 0.05) {
                out.append(String.format(
                        java.util.Locale.ROOT, "    %-32s woken %.2f  preempted %.2f%n", e.getKey(), v, i));
            }
        }
        out.append(String.format(java.util.Locale.ROOT, "    %-32s woken %.2f%n", "(all threads)", sum));
        return out.toString();
    }
}
