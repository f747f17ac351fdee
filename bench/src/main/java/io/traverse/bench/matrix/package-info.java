/**
 * The connection matrix of the SmartSockets paper's evaluation (§4, Tables 2-5) on the namespace
 * testbed: {@link io.traverse.bench.matrix.PaperSites} are the six sites, one line each;
 * {@link io.traverse.bench.matrix.ConnectionMatrix} measures every ordered pair of their nodes —
 * plain socket against Traverse, the winning module, cold, first and cached setup, round trips,
 * a large transfer checked with SHA-256 — beside what the topology predicts
 * ({@link io.traverse.testbed.ExpectedPath}); {@link io.traverse.bench.matrix.MatrixReport} writes
 * Markdown in the paper's layout and JSON. {@code bench/run-matrix.sh} runs it; results are in
 * {@code docs/benchmarks.md}.
 */
package io.traverse.bench.matrix;
