/**
 * {@code traverse expose} and {@code traverse forward}: plain TCP services and clients carried
 * through Traverse, each connection piped byte for byte with half-close and resets passed on.
 */
package io.traverse.cli.pipe;
