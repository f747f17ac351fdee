/**
 * {@code traverse expose} and {@code traverse forward}: plain TCP services and clients carried
 * through Traverse, each connection piped byte for byte with half-close and resets passed on.
 * {@link io.traverse.cli.pipe.ExposedService} and {@link io.traverse.cli.pipe.ForwardedService}
 * are one service each, run by these commands on a node of their own and by {@code traverse agent}
 * on a shared one.
 */
package io.traverse.cli.pipe;
