/**
 * {@code traverse demo}: nodes on loopback with simulated firewalls (paper §5's connection-refusing
 * handshake), every pair connected and measured; the expected outcome of each pair is derived from
 * the firewall rules and checked.
 */
package io.traverse.cli.demo;
