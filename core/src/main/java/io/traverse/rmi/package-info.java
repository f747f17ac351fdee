/**
 * Java RMI over Traverse: a client and a server socket factory that export a remote object under a
 * name registered at the hub network, so that clients on other sites, behind NAT or firewalls,
 * call it by that name. See {@link io.traverse.rmi.TraverseRmiServerSocketFactory}.
 */
package io.traverse.rmi;
