package io.traverse.config;

import java.util.ArrayList;
import java.util.List;

/**
 * The ports a node may listen on (paper §3.2.3: a firewall's open port range), e.g.
 * {@code 5000-5100,6000}; {@code 0} means any port the system picks.
 */
public final class PortRange {
    private record Span(int from, int to) {}

    public static final PortRange ANY = new PortRange(List.of(), "0");

    private final List<Span> spans;
    private final String text;

    private PortRange(List<Span> spans, String text) {
        this.spans = spans;
        this.text = text;
    }

    /** Parses {@code 0} or a comma-separated list of ports and {@code FROM-TO} ranges within 1–65535. */
    public static PortRange parse(String text) {
        String trimmed = text.trim();
        if (trimmed.equals("0") || trimmed.isEmpty()) {
            return ANY;
        }
        List<Span> spans = new ArrayList<>();
        for (String part : trimmed.split(",")) {
            String p = part.trim();
            int dash = p.indexOf('-');
            int from = port(dash < 0 ? p : p.substring(0, dash), text);
            int to = dash < 0 ? from : port(p.substring(dash + 1), text);
            if (to < from) {
                throw new IllegalArgumentException("range '" + p + "' ends before it starts");
            }
            spans.add(new Span(from, to));
        }
        return new PortRange(List.copyOf(spans), trimmed);
    }

    private static int port(String s, String whole) {
        try {
            int port = Integer.parseInt(s.trim());
            if (port >= 1 && port <= 65535) {
                return port;
            }
        } catch (NumberFormatException e) {
            // fall through to the message below
        }
        throw new IllegalArgumentException("'" + s.trim() + "' in '" + whole + "' is not a port within 1-65535");
    }

    public boolean isAny() {
        return spans.isEmpty();
    }

    /** The ports in the order to try them. */
    public List<Integer> ports() {
        List<Integer> out = new ArrayList<>();
        for (Span s : spans) {
            for (int p = s.from; p <= s.to; p++) {
                out.add(p);
            }
        }
        return out;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PortRange other && other.spans.equals(spans);
    }

    @Override
    public int hashCode() {
        return spans.hashCode();
    }

    @Override
    public String toString() {
        return text;
    }
}
