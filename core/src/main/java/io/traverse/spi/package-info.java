/**
 * The module SPI (paper §3.3.3): a {@link io.traverse.spi.ConnectionModuleProvider} found by
 * {@link java.util.ServiceLoader} creates a {@link io.traverse.spi.ConnectionModule} per node,
 * which turns a {@link io.traverse.spi.ConnectRequest} into a cancellable
 * {@link io.traverse.spi.ConnectionAttempt}. Failures carry a {@link io.traverse.spi.FailureScope}
 * so the racer knows whether anything else is worth trying. A module reports events for the
 * node's listeners through {@link io.traverse.spi.ModuleEvents}, and a socket whose bytes the
 * module moves itself exposes its counters as a {@link io.traverse.spi.MeasuredConnection}.
 */
package io.traverse.spi;
