/**
 * The public API of Traverse (paper §3.4): drop-in socket factories, explicit nodes
 * ({@link io.traverse.Traverse}), virtual addresses and their factory, configuration, and
 * connection statistics. Everything in sub-packages is the machinery behind it.
 */
package io.traverse;
