package io.traverse.security;

import io.traverse.identity.NodeId;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.util.Arrays;

/**
 * The Ed25519 key pair of a node or hub, and the id it gives: the first 16 bytes of SHA-256 of
 * the public key's X.509 encoding, written as a {@link NodeId}. So an id, and every {@code tv1-}
 * address that carries one, says which key must answer for it.
 */
public final class IdentityKey {
    static final String ALGORITHM = "Ed25519";
    private static final byte[] ID_LABEL = "traverse-id:".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private final PrivateKey privateKey;
    private final PublicKey publicKey;
    private final NodeId id;

    private IdentityKey(PrivateKey privateKey, PublicKey publicKey) {
        this.privateKey = privateKey;
        this.publicKey = publicKey;
        this.id = idOf(publicKey);
    }

    /** A new key pair. */
    public static IdentityKey generate() {
        return generate(null);
    }

    /** A new key pair drawn from {@code random} (null: the platform's strongest), e.g. seeded in tests. */
    public static IdentityKey generate(java.security.SecureRandom random) {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance(ALGORITHM);
            if (random != null) {
                generator.initialize(java.security.spec.NamedParameterSpec.ED25519, random);
            }
            KeyPair pair = generator.generateKeyPair();
            return new IdentityKey(pair.getPrivate(), pair.getPublic());
        } catch (NoSuchAlgorithmException | java.security.InvalidAlgorithmParameterException e) {
            throw new IllegalStateException("Ed25519 is part of every Java platform since 15", e);
        }
    }

    /**
     * A key pair read from somewhere: the public key must belong to the private key, which is
     * checked by signing and verifying (a file whose halves do not match would make a node whose
     * id no handshake can prove).
     *
     * @throws GeneralSecurityException if they are not an Ed25519 pair
     */
    static IdentityKey of(PrivateKey privateKey, PublicKey publicKey) throws GeneralSecurityException {
        if (!isEd25519(publicKey)) {
            throw new GeneralSecurityException("not an Ed25519 key: " + publicKey.getAlgorithm());
        }
        byte[] probe = "traverse key check".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        Signature signer = Signature.getInstance(ALGORITHM);
        signer.initSign(privateKey);
        signer.update(probe);
        byte[] signature = signer.sign();
        Signature verifier = Signature.getInstance(ALGORITHM);
        verifier.initVerify(publicKey);
        verifier.update(probe);
        if (!verifier.verify(signature)) {
            throw new GeneralSecurityException("the public key does not belong to the private key");
        }
        return new IdentityKey(privateKey, publicKey);
    }

    /** The id a public key gives. */
    public static NodeId idOf(PublicKey publicKey) {
        return idOfEncoded(publicKey.getEncoded());
    }

    /** The id the X.509 encoding of a public key gives. */
    static NodeId idOfEncoded(byte[] x509) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update(ID_LABEL);
            byte[] digest = sha.digest(x509);
            return NodeId.fromBytes(Arrays.copyOf(digest, 16));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every Java platform", e);
        }
    }

    /**
     * The private key's 32 bytes (RFC 8032's seed), for Bouncy Castle's Ed25519, which signs several
     * times faster than the JDK's (docs/benchmarks.md).
     */
    byte[] seed() {
        if (privateKey instanceof java.security.interfaces.EdECPrivateKey edec) {
            return edec.getBytes().orElseThrow(() -> new IllegalStateException("an Ed25519 key without its bytes"));
        }
        throw new IllegalStateException("not an Ed25519 private key: " + privateKey.getAlgorithm());
    }

    /** True for an Ed25519 public key, whichever provider made it. */
    static boolean isEd25519(PublicKey key) {
        String algorithm = key.getAlgorithm();
        return algorithm.equals("Ed25519") || algorithm.equals("EdDSA") && key.getEncoded().length == 44;
    }

    public NodeId id() {
        return id;
    }

    public PublicKey publicKey() {
        return publicKey;
    }

    PrivateKey privateKey() {
        return privateKey;
    }

    @Override
    public String toString() {
        return "IdentityKey[" + id + "]"; // never the private key
    }
}
