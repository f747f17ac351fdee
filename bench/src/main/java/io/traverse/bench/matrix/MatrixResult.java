package io.traverse.bench.matrix;

import io.traverse.testbed.SiteLine;
import java.util.List;
import java.util.Optional;

/** One matrix run: the sites, the options it ran with, and every ordered pair's results. */
public record MatrixResult(List<SiteLine> sites, MatrixOptions options, List<PairResult> pairs) {
    public MatrixResult {
        sites = List.copyOf(sites);
        pairs = List.copyOf(pairs);
    }

    /** The pair from {@code source} to {@code target}. */
    public Optional<PairResult> pair(String source, String target) {
        return pairs.stream()
                .filter(p -> p.source().equals(source) && p.target().equals(target))
                .findFirst();
    }

    /** Every pair's problems; empty when everything is as the topology predicts. */
    public List<String> problems() {
        return pairs.stream().flatMap(p -> p.problems().stream()).toList();
    }

    /** Every pair's notes (differences that are not failures). */
    public List<String> notes() {
        return pairs.stream().flatMap(p -> p.notes().stream()).toList();
    }
}
