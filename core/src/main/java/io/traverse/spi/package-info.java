/**
 * The module SPI (paper §3.3.3): a {@link io.traverse.spi.ConnectionModuleProvider} found by
 * {@link java.util.ServiceLoader} creates a {@link io.traverse.spi.ConnectionModule} per node,
 * which turns a {@link io.traverse.spi.ConnectRequest} into a cancellable
 * {@link io.traverse.spi.ConnectionAttempt}. Failures carry a {@link io.traverse.spi.FailureScope}
 * so the racer knows whether anything else is worth trying.
 */
package io.traverse.spi;
