/**
 * The engine of a node: wires identity, listener, virtual ports, modules and the racer together.
 * Internal; applications use {@link io.traverse.Traverse} and the socket factories.
 */
package io.traverse.node;
