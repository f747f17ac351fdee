/**
 * {@code traverse perf}: setup, round trips and throughput of a real path, per module, as iperf
 * measures plain TCP. The measuring itself is the bench harness's ({@link io.traverse.testbed.PathMeasurement}).
 */
package io.traverse.cli.perf;
