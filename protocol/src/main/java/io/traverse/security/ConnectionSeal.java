package io.traverse.security;

import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.security.Provider;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * The end-to-end encryption of one connection's two byte streams: AES-128-GCM, a key for each
 * direction, and the stream offset of a frame's first byte as its nonce. An offset is sealed once in
 * a stream (offsets only grow), so no nonce repeats under a key; a frame that is cut, moved,
 * replayed at another offset or changed fails to open.
 *
 * <p>The AES-GCM comes from {@link AesGcmProvider}: a connection sealed before the native provider
 * has loaded starts with the JDK's and moves to the native one when it is ready. Both give the same
 * bytes, so the other end cannot tell.
 *
 * <p>Sealing and opening each take their own lock: one writer and one reader of a connection may
 * work at once, and a {@link Cipher} serves one of them at a time.
 */
public final class ConnectionSeal {
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(ConnectionSeal.class);

    /** Bytes a sealed frame carries beyond its stream bytes: GCM's tag. */
    public static final int OVERHEAD = 16;
    /**
     * The JVM's system property that chooses the AES-GCM provider: {@code auto}, {@code jdk} or
     * {@code native} (docs/operations.md, "Java versions"). One per process, not a node's setting.
     */
    public static final String PROVIDER_PROPERTY = AesGcmProvider.PROPERTY;

    private static final int TAG_BITS = OVERHEAD * 8;
    private static final int NONCE_LENGTH = 12;

    private final Direction sealing;
    private final Direction opening;

    ConnectionSeal(byte[] sendKey, byte[] receiveKey) {
        this(sendKey, receiveKey, AesGcmProvider.nativeIfReady(), true);
    }

    /** With the AES-GCM of {@code provider} for good, or of the JDK's providers if null. */
    ConnectionSeal(byte[] sendKey, byte[] receiveKey, Provider provider) {
        this(sendKey, receiveKey, provider, false);
    }

    /** With {@code provider}, or the JDK's if null; {@code mayMove}: to the native provider once it has loaded. */
    ConnectionSeal(byte[] sendKey, byte[] receiveKey, Provider provider, boolean mayMove) {
        this.sealing = new Direction(sendKey, provider, mayMove);
        this.opening = new Direction(receiveKey, provider, mayMove);
    }

    /**
     * One direction's AES-GCM: its key, the nonce scratch, and the {@link Cipher}, which serves one
     * thread at a time (callers hold the direction's monitor).
     */
    private static final class Direction {
        private final SecretKeySpec key;
        private final byte[] nonce = new byte[NONCE_LENGTH];
        /** True while this direction runs on the JDK's provider and may move to the native one. */
        private boolean mayMove;

        private Cipher cipher;
        private volatile boolean isNative;

        Direction(byte[] key, Provider provider, boolean mayMove) {
            this.key = new SecretKeySpec(key, "AES");
            this.cipher = cipher(provider);
            this.isNative = provider != null;
            this.mayMove = mayMove && provider == null;
        }

        /** Holding this: the cipher set up for the frame at {@code offset}, on the native provider once loaded. */
        Cipher at(int mode, long offset) throws GeneralSecurityException {
            if (mayMove) {
                Provider p = AesGcmProvider.nativeIfReady();
                if (p != null) {
                    mayMove = false;
                    try {
                        cipher = cipher(p);
                        isNative = true;
                    } catch (IllegalStateException e) {
                        // The JDK's cipher goes on: both give the same bytes.
                        log.debug("Staying on the JDK's AES-GCM: {}", e.toString());
                    }
                }
            }
            cipher.init(mode, key, new GCMParameterSpec(TAG_BITS, nonce(nonce, offset)));
            return cipher;
        }
    }

    private static Cipher cipher(Provider provider) {
        try {
            return provider == null
                    ? Cipher.getInstance("AES/GCM/NoPadding")
                    : Cipher.getInstance("AES/GCM/NoPadding", provider);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM is part of every Java platform", e);
        }
    }

    /**
     * True if this seal runs fastest from an array into an array: on the native provider, whose way
     * through buffers outside the heap is slower than the JDK's, while arrays go 3-4 times faster.
     */
    public boolean prefersArrays() {
        return sealing.isNative;
    }

    /**
     * Starts loading the native provider in the background, where it is the choice ({@link
     * AesGcmProvider}): for a connection whose bytes will be sealed, not for a key proof's one tag.
     */
    public static void prepareForStreams() {
        AesGcmProvider.startLoading();
    }

    /** The provider that seals new connections now, for logs and benchmarks. */
    public static String providerName() {
        return AesGcmProvider.name();
    }

    /**
     * Seals {@code length} stream bytes of {@code plain} from {@code plainOffset}, which start at
     * stream offset {@code offset}, into {@code out} from {@code outOffset}: {@link #OVERHEAD} bytes
     * more.
     */
    public void seal(long offset, byte[] plain, int plainOffset, int length, byte[] out, int outOffset)
            throws GeneralSecurityException {
        synchronized (sealing) {
            sealing.at(Cipher.ENCRYPT_MODE, offset).doFinal(plain, plainOffset, length, out, outOffset);
        }
    }

    /**
     * Opens in place what the other end sealed at stream offset {@code offset}: the {@code
     * sealedLength} bytes of {@code bytes} from {@code from} become {@link #OVERHEAD} fewer stream
     * bytes there. If they fail to open, those bytes may have been overwritten (the native provider
     * zeroes them).
     *
     * @throws javax.crypto.AEADBadTagException if the bytes were changed, cut, or sealed for another offset or key
     */
    public void openInPlace(long offset, byte[] bytes, int from, int sealedLength) throws GeneralSecurityException {
        synchronized (opening) {
            opening.at(Cipher.DECRYPT_MODE, offset).doFinal(bytes, from, sealedLength, bytes, from);
        }
    }

    /**
     * Seals the stream bytes {@code plain} (position to limit) that start at stream offset
     * {@code offset} into {@code out}: as many bytes plus {@link #OVERHEAD}.
     */
    public void seal(long offset, ByteBuffer plain, ByteBuffer out) throws GeneralSecurityException {
        synchronized (sealing) {
            sealing.at(Cipher.ENCRYPT_MODE, offset).doFinal(plain, out);
        }
    }

    /**
     * Opens what the other end sealed at stream offset {@code offset}: {@code sealed} (position to
     * limit) into {@code out}, {@link #OVERHEAD} bytes fewer.
     *
     * @throws javax.crypto.AEADBadTagException if the bytes were changed, cut, or sealed for another offset or key
     */
    public void open(long offset, ByteBuffer sealed, ByteBuffer out) throws GeneralSecurityException {
        synchronized (opening) {
            opening.at(Cipher.DECRYPT_MODE, offset).doFinal(sealed, out);
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
