/**
 * The real-network testbed: sites built from Linux network namespaces, veth pairs and nftables
 * NAT and firewalls, for integration tests and benchmarks. Every namespace is removed again, also
 * on failure.
 */
package io.traverse.testbed;
