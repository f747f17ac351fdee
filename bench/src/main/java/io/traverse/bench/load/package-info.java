/**
 * The hub under load and churn, after CastGate's load and stress tests
 * ({@code papers/castgate-tunnel-server-load-test.txt}, sections IV and V): {@link io.traverse.bench.load.LoadRun}
 * ({@code bench/run-load.sh}) starts a hub JVM (or several in a line), a server JVM
 * ({@link io.traverse.bench.load.StreamServer}) and client JVMs of emulated routed-only nodes
 * ({@link io.traverse.bench.load.LoadClient}), each connection a {@link io.traverse.bench.load.PacedConnection}
 * writing seeded bytes at a steady pace in the format of {@link io.traverse.bench.load.PacedStreamFormat}
 * and verified by length and SHA-256 after half-close. Scenarios: ramp to the break point
 * ({@link io.traverse.bench.load.RampScenario}), churn with a JVM killed or silenced at once
 * ({@link io.traverse.bench.load.ChurnScenario}), a hub crash and restart
 * ({@link io.traverse.bench.load.RestartScenario}). Results: {@link io.traverse.bench.load.LoadReport}
 * (the summary block of docs/benchmarks.md) and {@link io.traverse.bench.load.LoadPlots} (PNG).
 * Children talk to the coordinator in lines on stdout ({@code STAT}, {@code FAIL}, {@code READY}).
 */
package io.traverse.bench.load;
