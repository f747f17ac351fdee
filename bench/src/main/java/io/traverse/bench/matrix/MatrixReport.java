package io.traverse.bench.matrix;

import io.traverse.testbed.ExpectedPath;
import io.traverse.testbed.RoundTripResult;
import io.traverse.testbed.SiteLine;
import io.traverse.testbed.TransferResult;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;

/**
 * A {@link MatrixResult} as Markdown tables in the paper's layout (one row per target, one column
 * per source; the module as a letter: d direct, r reverse, s splice, v routed, plain-socket
 * figures in brackets where plain sockets get through) and as JSON.
 */
public final class MatrixReport {
    private MatrixReport() {}

    public static String markdown(MatrixResult result) {
        StringBuilder md = new StringBuilder();
        MatrixOptions o = result.options();
        md.append(
                "Sites (paper Table 2; a site marked * is not the paper's):\n\n| site | frontend | nodes | private range |\n"
                        + "|---|---|---|---|\n");
        for (SiteLine s : result.sites()) {
            md.append("| ")
                    .append(marked(s.name()))
                    .append(" | ")
                    .append(s.frontend())
                    .append(" | ")
                    .append(s.nodes())
                    .append(" | ")
                    .append(s.privateRange())
                    .append(" |\n");
        }
        md.append("\nModule rules, first that holds wins:");
        for (ExpectedPath.ModuleRule rule : ExpectedPath.MODULE_RULES) {
            md.append(" ")
                    .append(rule.module())
                    .append(" if ")
                    .append(rule.when())
                    .append(";");
        }
        md.append(" a plain socket works where direct is predicted.\n");
        summary(
                md,
                result,
                "The paper's pairs",
                p -> PaperSites.inThePaper(p.source()) && PaperSites.inThePaper(p.target()));
        summary(
                md,
                result,
                "Pairs with a site not in the paper (*)",
                p -> !PaperSites.inThePaper(p.source()) || !PaperSites.inThePaper(p.target()));
        table(
                md,
                result,
                "Connection setup, cached module, median of " + o.repeats() + " (ms; plain socket in brackets)",
                p -> cell(p.cached(), r -> ms(r.setupMillis()))
                        + (p.plainWorked() ? " (" + ms(p.plain().setupMillis()) + ")" : ""));
        table(
                md,
                result,
                "Connection setup, first connection of a settled node (ms)",
                p -> cell(p.first(), r -> ms(r.setupMillis())));
        if (o.cold()) {
            table(
                    md,
                    result,
                    "Connection setup, cold JVM connecting at start (ms)",
                    p -> p.cold().map(c -> cell(c, r -> ms(r.setupMillis()))).orElse("-"));
        }
        if (o.wanLatency().hasDelay()) {
            md.append("\nWAN latency of the ")
                    .append(o.network())
                    .append(" network: ")
                    .append(o.wanLatency())
                    .append(".\n");
            table(
                    md,
                    result,
                    "Network round trip of the pair (ms, as ping would see it on an idle network)",
                    p -> ms(networkRttMillis(o, p)));
            table(
                    md,
                    result,
                    "Connection setup in network round trips: cached / first" + (o.cold() ? " / cold" : "")
                            + " (module of the cached one)",
                    p -> inRoundTrips(o, p));
        }
        table(
                md,
                result,
                "Round trip, median of " + o.rounds() + " one-byte round trips (us; v2 = routed through 2 hubs;"
                        + " plain socket in brackets)",
                p -> rttCell(p.rtt())
                        + p.plainRtt()
                                .map(r -> " (" + (r.ok() ? us(r.medianMicros()) : "failed") + ")")
                                .orElse(""));
        table(
                md,
                result,
                "Throughput, " + bytes(o.bytes()) + " with SHA-256 at both ends (MB/s; plain socket in brackets)",
                p -> cell(p.throughput(), r -> mbps(r))
                        + p.plainThroughput().map(r -> " (" + mbps(r) + ")").orElse(""));
        md.append("\nExpected and got, per pair (setup in ms; `!` marks a difference):\n\n")
                .append("| source | target | expected | plain expected / got | cold | first | cached |\n")
                .append("|---|---|---|---|---|---|---|\n");
        for (PairResult p : result.pairs()) {
            md.append("| ")
                    .append(p.source())
                    .append(" | ")
                    .append(p.target())
                    .append(" | ")
                    .append(p.expectedModule())
                    .append(" | ")
                    .append(p.plainExpected() ? "works" : "fails")
                    .append(" / ")
                    .append(p.plainWorked() ? "works" : "fails")
                    .append(p.plainWorked() != p.plainExpected() ? " !" : "")
                    .append(" | ")
                    .append(p.cold().map(c -> got(c, p, true)).orElse("-"))
                    .append(" | ")
                    .append(got(p.first(), p, true))
                    .append(" | ")
                    .append(got(p.cached(), p, false))
                    .append(" |\n");
        }
        List<String> problems = result.problems();
        md.append("\n").append(problems.isEmpty() ? "Every pair as predicted.\n" : "Problems:\n");
        problems.forEach(pr -> md.append("- ").append(pr).append('\n'));
        result.notes().forEach(n -> md.append("- note: ").append(n).append('\n'));
        return md.toString();
    }

    /** One line for a group of pairs: how many, how many as predicted, where plain sockets worked, which modules won. */
    private static void summary(
            StringBuilder md, MatrixResult result, String title, java.util.function.Predicate<PairResult> in) {
        List<PairResult> pairs = result.pairs().stream().filter(in).toList();
        if (pairs.isEmpty()) {
            return;
        }
        long asPredicted = pairs.stream().filter(p -> p.problems().isEmpty()).count();
        long plain = pairs.stream().filter(PairResult::plainWorked).count();
        java.util.Map<String, Long> modules = new java.util.TreeMap<>();
        pairs.forEach(p -> modules.merge(p.cached().ok() ? p.cached().module() : "failed", 1L, Long::sum));
        md.append("\n")
                .append(title)
                .append(": ")
                .append(asPredicted)
                .append('/')
                .append(pairs.size())
                .append(" as predicted; Traverse connects ")
                .append(pairs.stream()
                        .filter(p -> p.cached().ok() && p.throughput().ok())
                        .count())
                .append('/')
                .append(pairs.size())
                .append(", plain sockets ")
                .append(plain)
                .append('/')
                .append(pairs.size())
                .append("; cached modules ")
                .append(modules)
                .append(".\n");
    }

    /** The site's name, with a * if it is not one of the paper's six. */
    private static String marked(String site) {
        return PaperSites.inThePaper(site) ? site : site + " *";
    }

    private static void table(StringBuilder md, MatrixResult result, String title, Function<PairResult, String> cell) {
        md.append("\n").append(title).append(":\n\n| target \\ source |");
        for (SiteLine s : result.sites()) {
            md.append(' ').append(marked(s.name())).append(" |");
        }
        md.append("\n|---|");
        result.sites().forEach(s -> md.append("---|"));
        md.append('\n');
        for (SiteLine target : result.sites()) {
            md.append("| ").append(marked(target.name())).append(" |");
            for (SiteLine source : result.sites()) {
                md.append(' ')
                        .append(result.pair(source.name(), target.name())
                                .map(cell)
                                .orElse(""))
                        .append(" |");
            }
            md.append('\n');
        }
    }

    private static double networkRttMillis(MatrixOptions o, PairResult p) {
        return o.wanLatency().roundTrip(p.source(), p.target()).toNanos() / 1e6;
    }

    private static String inRoundTrips(MatrixOptions o, PairResult p) {
        double rtt = networkRttMillis(o, p);
        Function<TransferResult, String> n =
                r -> r.ok() ? String.format(Locale.ROOT, "%.1f", r.setupMillis() / rtt) : "failed";
        return n.apply(p.cached()) + " / " + n.apply(p.first())
                + p.cold().map(c -> " / " + n.apply(c)).orElse("")
                + (p.cached().ok() ? " " + letter(p.cached().module()) : "")
                + p.upgradeMillis()
                        .map(ms -> " (first " + letter(p.first().module()) + ", cached after " + ms + " ms)")
                        .orElse("");
    }

    private static String cell(TransferResult r, Function<TransferResult, String> value) {
        return r.ok() ? value.apply(r) + " " + letter(r.module()) : "failed";
    }

    private static String rttCell(RoundTripResult r) {
        return r.ok() ? us(r.medianMicros()) + " " + letter(r.module()) + (r.hubs() > 0 ? r.hubs() : "") : "failed";
    }

    private static String got(TransferResult r, PairResult p, boolean firstConnection) {
        if (!r.ok()) {
            return "failed ! " + r.error().replace("|", "/");
        }
        boolean expected = firstConnection ? p.firstModuleOk(r) : r.module().equals(p.expectedModule());
        return r.module() + " " + ms(r.setupMillis()) + (expected ? "" : " !");
    }

    static String letter(String module) {
        return switch (module) {
            case "direct" -> "d";
            case "reverse" -> "r";
            case "splice" -> "s";
            case "routed" -> "v";
            case "longpoll" -> "l";
            default -> module;
        };
    }

    private static String ms(double millis) {
        return millis < 10 ? String.format(Locale.ROOT, "%.2f", millis) : String.format(Locale.ROOT, "%.0f", millis);
    }

    private static String us(double micros) {
        return String.format(Locale.ROOT, "%.0f", micros);
    }

    private static String mbps(TransferResult r) {
        double v = PairResult.megabytesPerSecond(r);
        return v < 0 ? "failed" : String.format(Locale.ROOT, "%.0f", v);
    }

    private static String bytes(long n) {
        return n % (1 << 20) == 0 ? (n >> 20) + " MiB" : n + " bytes";
    }

    /** The whole result as JSON (hand-written: the bench has no JSON library). */
    public static String json(MatrixResult result) {
        MatrixOptions o = result.options();
        StringBuilder j = new StringBuilder("{\n  \"options\": {");
        j.append("\"bytes\": ")
                .append(o.bytes())
                .append(", \"checkBytes\": ")
                .append(o.checkBytes())
                .append(", \"coldBytes\": ")
                .append(o.coldBytes())
                .append(", \"rounds\": ")
                .append(o.rounds())
                .append(", \"repeats\": ")
                .append(o.repeats())
                .append(", \"timeoutMs\": ")
                .append(o.timeout().toMillis())
                .append(", \"plainTimeoutMs\": ")
                .append(o.plainTimeout().toMillis())
                .append(", \"coldParallel\": ")
                .append(o.coldParallel())
                .append(", \"latency\": ")
                .append(str(o.latency()))
                .append("},\n");
        j.append("  \"sites\": [");
        for (int i = 0; i < result.sites().size(); i++) {
            SiteLine s = result.sites().get(i);
            j.append(i == 0 ? "\n" : ",\n")
                    .append("    {\"name\": ")
                    .append(str(s.name()))
                    .append(", \"frontend\": ")
                    .append(str(s.frontend().name()))
                    .append(", \"nodes\": ")
                    .append(str(s.nodes().name()))
                    .append(", \"privateRange\": ")
                    .append(str(s.privateRange()))
                    .append('}');
        }
        j.append("\n  ],\n  \"pairs\": [");
        for (int i = 0; i < result.pairs().size(); i++) {
            PairResult p = result.pairs().get(i);
            j.append(i == 0 ? "\n" : ",\n")
                    .append("    {\"source\": ")
                    .append(str(p.source()))
                    .append(", \"target\": ")
                    .append(str(p.target()))
                    .append(", \"expectedModule\": ")
                    .append(str(p.expectedModule()))
                    .append(", \"plainExpected\": ")
                    .append(p.plainExpected())
                    .append(", \"plainWorked\": ")
                    .append(p.plainWorked())
                    .append(",\n     \"plain\": ")
                    .append(transfer(Optional.of(p.plain())))
                    .append(",\n     \"cold\": ")
                    .append(transfer(p.cold()))
                    .append(",\n     \"first\": ")
                    .append(transfer(Optional.of(p.first())))
                    .append(",\n     \"cached\": ")
                    .append(transfer(Optional.of(p.cached())))
                    .append(",\n     \"rtt\": ")
                    .append(rtt(Optional.of(p.rtt())))
                    .append(",\n     \"plainRtt\": ")
                    .append(rtt(p.plainRtt()))
                    .append(",\n     \"throughput\": ")
                    .append(transfer(Optional.of(p.throughput())))
                    .append(",\n     \"plainThroughput\": ")
                    .append(transfer(p.plainThroughput()))
                    .append(",\n     \"upgradeMs\": ")
                    .append(p.upgradeMillis().map(String::valueOf).orElse("null"))
                    .append(",\n     \"problems\": [");
            List<String> problems = p.problems();
            for (int k = 0; k < problems.size(); k++) {
                j.append(k == 0 ? "" : ", ").append(str(problems.get(k)));
            }
            j.append("]}");
        }
        return j.append("\n  ]\n}\n").toString();
    }

    private static String transfer(Optional<TransferResult> result) {
        if (result.isEmpty()) {
            return "null";
        }
        TransferResult r = result.get();
        return "{\"ok\": " + r.ok() + ", \"module\": " + str(r.module()) + ", \"setupMs\": "
                + String.format(Locale.ROOT, "%.3f", r.setupMillis()) + ", \"elapsedMs\": " + r.elapsedMillis()
                + ", \"bytes\": " + r.bytes() + ", \"megabytesPerSecond\": "
                + String.format(Locale.ROOT, "%.1f", PairResult.megabytesPerSecond(r)) + ", \"servedBy\": "
                + str(r.servedBy())
                + ", \"peer\": " + str(r.peer()) + ", \"error\": " + str(r.error()) + "}";
    }

    private static String rtt(Optional<RoundTripResult> result) {
        if (result.isEmpty()) {
            return "null";
        }
        RoundTripResult r = result.get();
        return "{\"ok\": " + r.ok() + ", \"module\": " + str(r.module()) + ", \"hubs\": " + r.hubs() + ", \"rounds\": "
                + r.rounds() + ", \"medianUs\": "
                + String.format(Locale.ROOT, "%.1f", r.medianMicros()) + ", \"minUs\": "
                + String.format(Locale.ROOT, "%.1f", r.minNanos() / 1000.0) + ", \"error\": " + str(r.error()) + "}";
    }

    private static String str(String s) {
        StringBuilder out = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }
}
