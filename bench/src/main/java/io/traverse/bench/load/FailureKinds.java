package io.traverse.bench.load;

import java.io.EOFException;
import java.io.PrintStream;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Failures of a process's connections, counted by kind: {@code reset}, {@code timeout},
 * {@code eof} (the stream ended early), {@code connect} and the exception class for anything else.
 * The first few messages of each kind are printed as {@code FAIL kind message} lines, so the
 * coordinator can say which error and which limit a run broke on.
 */
final class FailureKinds {
    private static final int MESSAGES_PER_KIND = 3;
    private final Map<String, LongAdder> counts = new ConcurrentHashMap<>();
    private final PrintStream out;

    FailureKinds(PrintStream out) {
        this.out = out;
    }

    static String kindOf(Throwable e) {
        String message = String.valueOf(e.getMessage());
        if (e instanceof SocketTimeoutException) {
            return "timeout";
        }
        if (e instanceof SocketException && message.toLowerCase().contains("reset")) {
            return "reset";
        }
        if (e instanceof EOFException) {
            return "eof";
        }
        return e.getClass().getSimpleName();
    }

    /** Counts the failure under {@code kind} and prints its message if it is one of the first of that kind. */
    void count(String kind, String message) {
        LongAdder n = counts.computeIfAbsent(kind, k -> new LongAdder());
        n.increment();
        if (n.sum() <= MESSAGES_PER_KIND) {
            synchronized (out) {
                out.println("FAIL " + kind + " " + message.replace('\n', ' '));
            }
        }
    }

    /** {@code kind:count,...} ("-" when none). */
    String encode() {
        StringBuilder b = new StringBuilder();
        counts.forEach((k, v) -> b.append(k).append(':').append(v.sum()).append(','));
        return b.length() == 0 ? "-" : b.substring(0, b.length() - 1);
    }
}
