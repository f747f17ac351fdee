package io.traverse.security;

import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * The end-to-end encryption of one connection's two byte streams: AES-128-GCM (the JDK's), a key
 * for each direction, and the stream offset of a frame's first byte as its nonce. An offset is
 * sealed once in a stream (offsets only grow), so no nonce repeats under a key; a frame that is
 * cut, moved, replayed at another offset or changed fails to open.
 *
 * <p>Sealing and opening each take their own lock: one writer and one reader of a connection may
 * work at once, and a {@link Cipher} serves one of them at a time.
 */
public final class ConnectionSeal {
    /** Bytes a sealed frame carries beyond its stream bytes: GCM's tag. */
    public static final int OVERHEAD = 16;

    private static final int TAG_BITS = OVERHEAD * 8;
    private static final int NONCE_LENGTH = 12;

    private final SecretKeySpec sendKey;
    private final SecretKeySpec receiveKey;
    private final Cipher sealer;
    private final Cipher opener;
    private final byte[] sealNonce = new byte[NONCE_LENGTH];
    private final byte[] openNonce = new byte[NONCE_LENGTH];

    ConnectionSeal(byte[] sendKey, byte[] receiveKey) {
        this.sendKey = new SecretKeySpec(sendKey, "AES");
        this.receiveKey = new SecretKeySpec(receiveKey, "AES");
        try {
            this.sealer = Cipher.getInstance("AES/GCM/NoPadding");
            this.opener = Cipher.getInstance("AES/GCM/NoPadding");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM is part of every Java platform", e);
        }
    }

    /**
     * Seals the stream bytes {@code plain} (position to limit) that start at stream offset
     * {@code offset} into {@code out}: as many bytes plus {@link #OVERHEAD}.
     */
    public void seal(long offset, ByteBuffer plain, ByteBuffer out) throws GeneralSecurityException {
        synchronized (sealer) {
            sealer.init(Cipher.ENCRYPT_MODE, sendKey, new GCMParameterSpec(TAG_BITS, nonce(sealNonce, offset)));
            sealer.doFinal(plain, out);
        }
    }

    /**
     * Opens what the other end sealed at stream offset {@code offset}: {@code sealed} (position to
     * limit) into {@code out}, {@link #OVERHEAD} bytes fewer.
     *
     * @throws javax.crypto.AEADBadTagException if the bytes were changed, cut, or sealed for another offset or key
     */
    public void open(long offset, ByteBuffer sealed, ByteBuffer out) throws GeneralSecurityException {
        synchronized (opener) {
            opener.init(Cipher.DECRYPT_MODE, receiveKey, new GCMParameterSpec(TAG_BITS, nonce(openNonce, offset)));
            opener.doFinal(sealed, out);
        }
    }

    private static byte[] nonce(byte[] nonce, long offset) {
        // GCMParameterSpec copies the bytes, so one scratch array serves every frame.
        for (int i = 0; i < 8; i++) {
            nonce[NONCE_LENGTH - 1 - i] = (byte) (offset >>> (8 * i));
        }
        return nonce;
    }
}
