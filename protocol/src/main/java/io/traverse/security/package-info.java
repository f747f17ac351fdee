/**
 * Who a node or hub is, proved: its Ed25519 {@link io.traverse.security.IdentityKey} (the node or
 * hub id is a digest of the public key), the file that keeps one ({@link io.traverse.security.KeyFile}),
 * and TLS 1.3 for hub links authenticated by those keys rather than by a certificate authority
 * ({@link io.traverse.security.LinkTls}); and the end-to-end encryption of relayed connections:
 * key agreements kept per peer ({@link io.traverse.security.PeerSessions}) and the AES-GCM that
 * seals a connection's streams ({@link io.traverse.security.ConnectionSeal}). No primitive is
 * written here: TLS, HMAC and digests are the JDK's, Ed25519, X25519 and certificates Bouncy
 * Castle's, and AES-GCM the JDK's or, before Java 24, Amazon Corretto Crypto Provider's.
 */
package io.traverse.security;
