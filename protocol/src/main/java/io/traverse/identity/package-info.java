/**
 * Node identity (paper §3.2.1): the node id, the classification of addresses by reach, the local
 * interfaces with their netmasks, the hostname-safe text form of an identity, and the order in
 * which a target's addresses are tried (paper §3.2.2).
 */
package io.traverse.identity;
