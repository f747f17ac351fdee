package io.traverse.config;

import io.traverse.firewall.FirewallRule;
import io.traverse.identity.IpLiterals;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The text forms of configuration values, parsed and range-checked, for core's keys and the
 * modules' ({@link ModuleKey}). Each parser throws {@link IllegalArgumentException} saying what is
 * wrong with the value; the configuration adds the key, the origin and the accepted form.
 */
public final class ConfigValues {
    private static final Pattern DURATION = Pattern.compile("(\\d{1,9})\\s*(ms|s|m|h)?");

    private ConfigValues() {}

    public static int atLeast(int n, int min, String shown) {
        if (n < min) {
            throw new IllegalArgumentException(n + " bytes is less than " + shown);
        }
        return n;
    }

    /** A size in bytes: a whole number, optionally with k or m (1024-based). */
    public static int size(String v) {
        String lower = v.toLowerCase(Locale.ROOT);
        int unit = lower.endsWith("k") ? 1024 : lower.endsWith("m") ? 1024 * 1024 : 1;
        String digits = unit == 1 ? lower : lower.substring(0, lower.length() - 1);
        try {
            long n = Long.parseLong(digits) * unit;
            if (n < 1 || n > Integer.MAX_VALUE) {
                throw new IllegalArgumentException(v + " is not a size from 1 byte");
            }
            return (int) n;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + v + "' is not a size such as 65536, 256k or 1m");
        }
    }

    public static String oneOf(String v, String... allowed) {
        String lower = v.toLowerCase(Locale.ROOT);
        for (String a : allowed) {
            if (a.equals(lower)) {
                return a;
            }
        }
        throw new IllegalArgumentException("'" + v + "' is none of " + String.join(", ", allowed));
    }

    public static int between(String v, int min, int max) {
        int n;
        try {
            n = Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + v + "' is not a whole number");
        }
        if (n < min || n > max) {
            throw new IllegalArgumentException(n + " is not within " + min + "-" + max);
        }
        return n;
    }

    public static List<String> names(String v) {
        List<String> out = new ArrayList<>();
        for (String part : v.split(",")) {
            String name = part.trim().toLowerCase(Locale.ROOT);
            if (!name.isEmpty()) {
                if (out.contains(name)) {
                    throw new IllegalArgumentException("module '" + name + "' is listed twice");
                }
                out.add(name);
            }
        }
        return out;
    }

    /** {@code host:port} items; with {@code portOptional}, IP literals only and a missing port reads as 0. */
    public static List<InetSocketAddress> endpoints(String v, boolean externalsForm) {
        List<InetSocketAddress> out = new ArrayList<>();
        if (v.isEmpty()) {
            return out;
        }
        for (String part : v.split(",")) {
            String item = part.trim();
            if (item.isEmpty()) {
                continue;
            }
            String host;
            String portText;
            if (item.startsWith("[")) {
                int close = item.indexOf(']');
                if (close < 0) {
                    throw new IllegalArgumentException("'" + item + "' has '[' without ']'");
                }
                host = item.substring(1, close);
                String rest = item.substring(close + 1);
                portText = rest.isEmpty() ? null : rest.startsWith(":") ? rest.substring(1) : "?" + rest;
            } else if (item.indexOf(':') != item.lastIndexOf(':')) {
                host = item; // bare IPv6
                portText = null;
            } else {
                int colon = item.lastIndexOf(':');
                host = colon < 0 ? item : item.substring(0, colon);
                portText = colon < 0 ? null : item.substring(colon + 1);
            }
            int port;
            if (portText == null) {
                if (!externalsForm) {
                    throw new IllegalArgumentException("'" + item + "' has no ':PORT'");
                }
                port = 0;
            } else {
                try {
                    port = Integer.parseInt(portText);
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("port '" + portText + "' of '" + item + "' is not a number");
                }
                if (port < 1 || port > 65535) {
                    throw new IllegalArgumentException("port " + port + " of '" + item + "' is not within 1-65535");
                }
            }
            if (IpLiterals.isLiteral(host)) {
                out.add(new InetSocketAddress(IpLiterals.parse(host), port));
            } else if (externalsForm) {
                throw new IllegalArgumentException("'" + host + "' is not an IP address");
            } else {
                if (!host.matches("[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?")) {
                    throw new IllegalArgumentException("'" + host + "' is not a host name or IP address");
                }
                out.add(InetSocketAddress.createUnresolved(host, port));
            }
        }
        return out;
    }

    public static List<FirewallRule> firewallRules(String v) {
        List<FirewallRule> out = new ArrayList<>();
        for (String part : v.split(",")) {
            if (!part.isBlank()) {
                out.add(FirewallRule.parse(part));
            }
        }
        return out;
    }

    /** {@code 250ms}, {@code 5s}, {@code 2m}, {@code 1h}; a bare number is milliseconds. */
    public static Duration duration(String v) {
        Matcher m = DURATION.matcher(v.toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + v + "' is not a duration");
        }
        long n = Long.parseLong(m.group(1));
        String unit = m.group(2) == null ? "ms" : m.group(2);
        return countable(
                switch (unit) {
                    case "ms" -> Duration.ofMillis(n);
                    case "s" -> Duration.ofSeconds(n);
                    case "m" -> Duration.ofMinutes(n);
                    default -> Duration.ofHours(n);
                });
    }

    public static Duration positive(Duration d) {
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException("duration must be greater than zero");
        }
        return countable(d);
    }

    public static Duration nonNegative(Duration d) {
        if (d.isNegative()) {
            throw new IllegalArgumentException("duration must not be negative");
        }
        return countable(d);
    }

    /** The node counts every duration in nanoseconds (deadlines, cache ttl): longer ones would overflow there. */
    private static Duration countable(Duration d) {
        if (d.compareTo(LONGEST_COUNTABLE) > 0) {
            throw new IllegalArgumentException("duration " + d + " is too long (at most 2562047h)");
        }
        return d;
    }

    private static final Duration LONGEST_COUNTABLE = Duration.ofNanos(Long.MAX_VALUE);

    public static int port(String v) {
        int n = positive(v);
        if (n > 65535) {
            throw new IllegalArgumentException(n + " is not a port (1-65535)");
        }
        return n;
    }

    public static boolean bool(String v) {
        return switch (v.toLowerCase(Locale.ROOT)) {
            case "true", "yes", "on" -> true;
            case "false", "no", "off" -> false;
            default -> throw new IllegalArgumentException("'" + v + "' is neither true nor false");
        };
    }

    public static int positive(String v) {
        int n;
        try {
            n = Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + v + "' is not a whole number");
        }
        if (n < 1) {
            throw new IllegalArgumentException(n + " is less than 1");
        }
        return n;
    }
}
