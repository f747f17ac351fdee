/**
 * JMH benchmarks of direct Traverse connections against plain {@code java.net.Socket} on
 * loopback (results in {@code docs/benchmarks.md}):
 * <ul>
 *   <li>{@link io.traverse.bench.ConnectSetup}: connection setup until the application can use
 *       the socket: plain connect (with and without reading the server's first byte) against a
 *       cached direct Traverse connection, whose {@code createSocket} returns after the identity
 *       handshake;</li>
 *   <li>{@link io.traverse.bench.Throughput}: 64 KiB writes over a connected pair, drained by a
 *       server thread;</li>
 *   <li>{@link io.traverse.bench.RoundTrip}: 1-byte round trips to an echo thread.</li>
 * </ul>
 * Both contenders get the same socket options ({@code TCP_NODELAY} on every socket, default
 * buffers) and the same thread structure (the JMH thread is the client, one server thread).
 * {@link io.traverse.bench.DirectRounds} runs plain and Traverse alternately, round by round, and
 * reports medians; {@code bench/run-direct.sh} runs it pinned to one core.
 *
 * <p>{@link io.traverse.bench.DropInSetupRounds} ({@code bench/run-dropin.sh}) measures setup as a
 * user of the drop-in factories gets it: default configuration on every interface, the server in
 * a process of its own ({@link io.traverse.bench.DropInServer}), connect plus first byte for both
 * contenders.
 */
package io.traverse.bench;
