/**
 * Who a node or hub is, proved: its Ed25519 {@link io.traverse.security.IdentityKey} (the node or
 * hub id is a digest of the public key), the file that keeps one ({@link io.traverse.security.KeyFile}),
 * and TLS 1.3 for hub links authenticated by those keys rather than by a certificate authority
 * ({@link io.traverse.security.LinkTls}). No primitive is written here: signatures, digests and
 * TLS are the JDK's, certificates are built by Bouncy Castle.
 */
package io.traverse.security;
