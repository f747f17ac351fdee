/**
 * Answers to nodes' LOOKUPs (paper §3.3.2): a name to its virtual address, a node to its hub, and
 * listings of hubs, links, nodes and names, from a consistent view of the hub network. Entry
 * formats are specified in docs/protocol.md.
 */
package io.traverse.hub.lookup;
