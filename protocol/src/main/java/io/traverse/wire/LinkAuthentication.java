package io.traverse.wire;

import io.traverse.identity.NodeId;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Mutual challenge-response with the network token; the token never crosses the wire.
 *
 * <pre>
 * dialer proof   = HMAC-SHA256(token, "traverse-link-1 dialer"   ‖ clientNonce ‖ serverNonce ‖ id(dialer) ‖ id(acceptor))
 * acceptor proof = HMAC-SHA256(token, "traverse-link-1 acceptor" ‖ serverNonce ‖ clientNonce ‖ id(acceptor) ‖ id(dialer))
 * id(x)          = u8 length ‖ ASCII text of the node or hub id
 * </pre>
 *
 * Each side's nonce makes a recorded proof useless on another link; the labels stop a proof of
 * one direction being replayed as the other; binding both ids stops a proof being relayed to a
 * third party. Proofs are compared in constant time. An empty token is allowed (an HMAC with an
 * empty key, which the JDK expresses as a single zero byte: HMAC pads keys with zeros) but gives
 * no protection; callers log a warning. Thread-safe.
 */
public final class LinkAuthentication {
    private static final String ALGORITHM = "HmacSHA256";
    private static final byte[] DIALER_LABEL = "traverse-link-1 dialer".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] ACCEPTOR_LABEL = "traverse-link-1 acceptor".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] DATA_LINK_LABEL = "traverse-link-1 data link".getBytes(StandardCharsets.US_ASCII);
    /**
     * One DRBG per thread: the platform default (NativePRNG) reads /dev/urandom under one global
     * lock, and every link handshake on every event loop draws a nonce.
     */
    private static final ThreadLocal<SecureRandom> RANDOM = ThreadLocal.withInitial(LinkAuthentication::newGenerator);

    private final SecretKeySpec key;
    private final boolean emptyToken;

    /** @param token the network token (UTF-8); may be empty, not null */
    public LinkAuthentication(String token) {
        byte[] bytes = token.getBytes(StandardCharsets.UTF_8);
        this.emptyToken = bytes.length == 0;
        this.key = new SecretKeySpec(emptyToken ? new byte[1] : bytes, ALGORITHM);
    }

    /** True when links are "authenticated" with an empty token, i.e. not at all. */
    public boolean hasEmptyToken() {
        return emptyToken;
    }

    /** A fresh random nonce of {@link LinkLimits#NONCE_LENGTH} bytes. */
    public static byte[] newNonce() {
        byte[] nonce = new byte[LinkLimits.NONCE_LENGTH];
        RANDOM.get().nextBytes(nonce);
        return nonce;
    }

    /** The proof the dialer sends in AUTH. */
    public byte[] dialerProof(byte[] clientNonce, byte[] serverNonce, NodeId dialerId, NodeId acceptorId) {
        return mac(DIALER_LABEL, clientNonce, serverNonce, dialerId, acceptorId);
    }

    /** The proof the acceptor sends in WELCOME. */
    public byte[] acceptorProof(byte[] serverNonce, byte[] clientNonce, NodeId acceptorId, NodeId dialerId) {
        return mac(ACCEPTOR_LABEL, serverNonce, clientNonce, acceptorId, dialerId);
    }

    /**
     * The proof a node sends in the AUTH of its data link: the dialer proof of the data link's
     * own handshake, bound to the handshake of the node's link ({@code linkClientNonce},
     * {@code linkServerNonce}), so that only the node that made that link can bind a data link to it.
     */
    public byte[] dataLinkProof(
            byte[] clientNonce,
            byte[] serverNonce,
            NodeId nodeId,
            NodeId hubId,
            byte[] linkClientNonce,
            byte[] linkServerNonce) {
        FieldChecks.exactBytes("nonce", linkClientNonce, LinkLimits.NONCE_LENGTH);
        FieldChecks.exactBytes("nonce", linkServerNonce, LinkLimits.NONCE_LENGTH);
        byte[] bound = new byte[2 * LinkLimits.NONCE_LENGTH];
        System.arraycopy(linkClientNonce, 0, bound, 0, LinkLimits.NONCE_LENGTH);
        System.arraycopy(linkServerNonce, 0, bound, LinkLimits.NONCE_LENGTH, LinkLimits.NONCE_LENGTH);
        return mac(DATA_LINK_LABEL, clientNonce, serverNonce, nodeId, hubId, bound);
    }

    /** The hub's check of a data link's AUTH proof against the node's link, in constant time. */
    public boolean isValidDataLinkProof(
            byte[] proof,
            byte[] clientNonce,
            byte[] serverNonce,
            NodeId nodeId,
            NodeId hubId,
            byte[] linkClientNonce,
            byte[] linkServerNonce) {
        return MessageDigest.isEqual(
                proof, dataLinkProof(clientNonce, serverNonce, nodeId, hubId, linkClientNonce, linkServerNonce));
    }

    /** The acceptor's check of an AUTH proof, in constant time. */
    public boolean isValidDialerProof(
            byte[] proof, byte[] clientNonce, byte[] serverNonce, NodeId dialerId, NodeId acceptorId) {
        return MessageDigest.isEqual(proof, dialerProof(clientNonce, serverNonce, dialerId, acceptorId));
    }

    /** The dialer's check of a WELCOME proof, in constant time: a hub without the token is refused. */
    public boolean isValidAcceptorProof(
            byte[] proof, byte[] serverNonce, byte[] clientNonce, NodeId acceptorId, NodeId dialerId) {
        return MessageDigest.isEqual(proof, acceptorProof(serverNonce, clientNonce, acceptorId, dialerId));
    }

    private byte[] mac(byte[] label, byte[] firstNonce, byte[] secondNonce, NodeId firstId, NodeId secondId) {
        return mac(label, firstNonce, secondNonce, firstId, secondId, new byte[0]);
    }

    private byte[] mac(
            byte[] label, byte[] firstNonce, byte[] secondNonce, NodeId firstId, NodeId secondId, byte[] tail) {
        FieldChecks.exactBytes("nonce", firstNonce, LinkLimits.NONCE_LENGTH);
        FieldChecks.exactBytes("nonce", secondNonce, LinkLimits.NONCE_LENGTH);
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(key);
            mac.update(label);
            mac.update(firstNonce);
            mac.update(secondNonce);
            updateId(mac, firstId);
            updateId(mac, secondId);
            mac.update(tail);
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every Java platform", e);
        }
    }

    private static void updateId(Mac mac, NodeId id) {
        byte[] text = id.toString().getBytes(StandardCharsets.US_ASCII);
        mac.update((byte) text.length);
        mac.update(text);
    }

    @Override
    public String toString() {
        return "LinkAuthentication[" + (emptyToken ? "empty token" : "token set") + "]";
    }

    private static SecureRandom newGenerator() {
        try {
            return SecureRandom.getInstance("DRBG");
        } catch (java.security.NoSuchAlgorithmException e) {
            return new SecureRandom();
        }
    }
}
