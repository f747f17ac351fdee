package io.traverse.security;

import com.amazon.corretto.crypto.provider.AmazonCorrettoCryptoProvider;
import java.security.GeneralSecurityException;
import java.security.Provider;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which provider runs the AES-GCM of connections sealed end to end. Before Java 24, Amazon Corretto
 * Crypto Provider (AWS-LC's AES-GCM through JNI) where its native library loads and passes its
 * self-tests: on Java 17 it seals 64 KiB frames in byte arrays 3-4 times faster than the JDK's
 * provider, which lacks the AVX-512 AES-GCM of later JDKs. From Java 24 the JDK's own, which is
 * fast there, and whose use needs no native library (loading one without {@code
 * --enable-native-access} prints warnings there). {@code -Dtraverse.crypto.provider=jdk} or {@code
 * native} chooses for any Java.
 *
 * <p>Loading it costs a fresh JVM about 0.3 s of one core (its library and self-tests), so it
 * loads on a thread of its own when the first connection is sealed for its bytes ({@link
 * #startLoading}), and the JDK's provider serves until it is ready: both give the same bytes. A
 * key proof's one tag (a kernel socket's first contact) does not start the load, though once it
 * has loaded it serves those tags too.
 */
final class AesGcmProvider {
    /** The system property that chooses: {@code auto} (the default), {@code jdk} or {@code native}. */
    static final String PROPERTY = "traverse.crypto.provider";

    /** The first Java release whose own AES-GCM {@code auto} keeps. */
    static final int FIRST_JDK_PREFERRED = 24;

    private static final Logger LOG = LoggerFactory.getLogger(AesGcmProvider.class);
    private static final AtomicBoolean STARTED = new AtomicBoolean();
    private static final CountDownLatch LOADED = new CountDownLatch(1);
    private static volatile Provider loaded;

    private AesGcmProvider() {}

    /** The native provider if it has loaded, else null. */
    static Provider nativeIfReady() {
        return loaded;
    }

    /** The native provider, or null where it does not load; waits at most {@code seconds} for it. */
    static Provider awaitNative(long seconds) throws InterruptedException {
        startLoading();
        LOADED.await(seconds, TimeUnit.SECONDS);
        return loaded;
    }

    /** The name of the provider that seals new connections now, for logs and benchmarks. */
    static String name() {
        Provider p = loaded;
        return p == null ? "JDK" : p.getName();
    }

    /** Starts loading the native provider on a thread of its own, once per JVM. */
    static void startLoading() {
        if (STARTED.get() || !STARTED.compareAndSet(false, true)) {
            return;
        }
        Thread loader = new Thread(
                () -> {
                    try {
                        loaded = loadNative();
                    } finally {
                        LOADED.countDown();
                    }
                },
                "traverse-aes-gcm-loader");
        loader.setDaemon(true);
        loader.start();
    }

    private static Provider loadNative() {
        String choice = System.getProperty(PROPERTY, "auto").trim().toLowerCase(Locale.ROOT);
        if (!choice.equals("auto") && !choice.equals("jdk") && !choice.equals("native")) {
            LOG.warn("{}={} is not auto, jdk or native; choosing as auto does", PROPERTY, choice);
            choice = "auto";
        }
        if (choice.equals("jdk") || (choice.equals("auto") && Runtime.version().feature() >= FIRST_JDK_PREFERRED)) {
            return null;
        }
        try {
            Provider corretto = Corretto.loaded();
            if (corretto == null) {
                return null;
            }
            sealOnce(corretto);
            LOG.debug("AES-GCM from {}", corretto.getName());
            return corretto;
        } catch (LinkageError | RuntimeException | GeneralSecurityException e) {
            // Absent from the class path, its self-tests failed, or this JDK does not let it serve
            // Cipher (one that wants providers signed, and the jar was repacked): the JDK's is always there.
            LOG.debug("AES-GCM from the JDK: Corretto is not usable here ({})", e.toString());
            return null;
        }
    }

    /**
     * Every reference to Corretto's classes. Kept out of {@link AesGcmProvider}'s own code, which the
     * verifier would otherwise check against them (and fail, where the jar is absent) when the class
     * is first used, outside any try.
     */
    private static final class Corretto {
        private Corretto() {}

        /** The provider if its native library loaded and its self-tests pass, else null. */
        static Provider loaded() {
            AmazonCorrettoCryptoProvider accp = AmazonCorrettoCryptoProvider.INSTANCE;
            Throwable error = accp.getLoadingError();
            if (error != null) {
                LOG.debug("AES-GCM from the JDK: Corretto's native library did not load ({})", error.toString());
                return null;
            }
            accp.assertHealthy();
            return accp;
        }
    }

    /** Seals one message as a connection will, so that a provider this JDK refuses is never chosen. */
    private static void sealOnce(Provider provider) throws GeneralSecurityException {
        Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding", provider);
        cipher.init(
                Cipher.ENCRYPT_MODE, new SecretKeySpec(new byte[16], "AES"), new GCMParameterSpec(128, new byte[12]));
        cipher.doFinal(new byte[16]);
    }
}
