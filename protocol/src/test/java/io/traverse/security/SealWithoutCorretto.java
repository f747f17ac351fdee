package io.traverse.security;

import java.util.Arrays;

/**
 * Run in a JVM whose class path lacks Corretto's jar (an application that excluded it): sealing
 * must fall back to the JDK's AES-GCM, not fail. Prints {@code sealed with JDK} when it did.
 */
public final class SealWithoutCorretto {
    private SealWithoutCorretto() {}

    public static void main(String[] args) throws Exception {
        byte[] one = new byte[16];
        byte[] other = new byte[16];
        Arrays.fill(other, (byte) 1);
        ConnectionSeal.prepareForStreams();
        ConnectionSeal a = new ConnectionSeal(one, other);
        ConnectionSeal b = new ConnectionSeal(other, one);
        byte[] plain = "stream bytes".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        byte[] sealed = new byte[plain.length + ConnectionSeal.OVERHEAD];
        a.seal(0, plain, 0, plain.length, sealed, 0);
        b.openInPlace(0, sealed, 0, sealed.length);
        if (!Arrays.equals(Arrays.copyOf(sealed, plain.length), plain)) {
            throw new AssertionError("opened other bytes than were sealed");
        }
        System.out.println("sealed with " + (AesGcmProvider.awaitNative(30) == null ? "JDK" : "native"));
    }
}
