package io.traverse.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.nio.ByteBuffer;
import java.security.Provider;
import java.util.Arrays;
import java.util.Random;
import javax.crypto.AEADBadTagException;
import org.junit.jupiter.api.Test;

/**
 * The two ways through {@link ConnectionSeal} (buffers, and arrays opened in place) and its two
 * providers give the same bytes, so two nodes that seal with different providers understand each
 * other.
 */
class ConnectionSealTest {
    private static final long SEED = 0x5EA1_2026L;
    private static final int[] LENGTHS = {0, 1, 15, 16, 17, 1000, 4096, 65_536};

    private final Random random = new Random(SEED);
    private final byte[] aToB = randomBytes(16);
    private final byte[] bToA = randomBytes(16);

    @Test
    void theNativeProviderLoadsOnLinuxX8664BeforeJava24() throws Exception {
        assumeThat(Runtime.version().feature()).isLessThan(AesGcmProvider.FIRST_JDK_PREFERRED);
        assumeThat(System.getProperty("os.name")).isEqualTo("Linux");
        assumeThat(System.getProperty("os.arch")).isIn("amd64", "x86_64");
        assumeThat(System.getProperty(AesGcmProvider.PROPERTY, "auto")).isEqualTo("auto");

        // Without it, sealed relays on Java 17 run at the JDK provider's speed, silently.
        assertThat(AesGcmProvider.awaitNative(30)).isNotNull();
        assertThat(ConnectionSeal.providerName()).isEqualTo("AmazonCorrettoCryptoProvider");
        assertThat(new ConnectionSeal(aToB, bToA).prefersArrays()).isTrue();
    }

    @Test
    void anApplicationThatExcludesCorrettosJarSealsWithTheJdks() throws Exception {
        // Only what ConnectionSeal needs: this module's classes, these tests' and SLF4J's API.
        String classPath = String.join(
                java.io.File.pathSeparator,
                codeSource(ConnectionSeal.class),
                codeSource(SealWithoutCorretto.class),
                codeSource(org.slf4j.LoggerFactory.class));
        assertThat(classPath).doesNotContain("Corretto");
        Process child = new ProcessBuilder(
                        java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java")
                                .toString(),
                        "-cp",
                        classPath,
                        SealWithoutCorretto.class.getName())
                .redirectErrorStream(true)
                .start();
        String output = new String(child.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(child.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        assertThat(child.exitValue()).as(output).isZero();
        assertThat(output).contains("sealed with JDK");
    }

    private static String codeSource(Class<?> type) throws Exception {
        return java.nio.file.Path.of(
                        type.getProtectionDomain().getCodeSource().getLocation().toURI())
                .toString();
    }

    @Test
    void aSealThatStartedOnTheJdksMovesToTheNativeOneMidStream() throws Exception {
        assumeThat(AesGcmProvider.awaitNative(30)).isNotNull();
        ConnectionSeal started = new ConnectionSeal(aToB, bToA, null, true);
        ConnectionSeal jdkOnly = new ConnectionSeal(bToA, aToB, null);
        assertThat(started.prefersArrays()).isFalse();

        long offset = 0;
        for (int frame = 0; frame < 3; frame++) {
            byte[] plain = randomBytes(1000);
            byte[] sealed = new byte[plain.length + ConnectionSeal.OVERHEAD];
            started.seal(offset, plain, 0, plain.length, sealed, 0);
            assertThat(started.prefersArrays())
                    .as("moved at the first frame after the load")
                    .isTrue();
            jdkOnly.openInPlace(offset, sealed, 0, sealed.length);
            assertThat(Arrays.copyOf(sealed, plain.length)).isEqualTo(plain);

            byte[] back = new byte[plain.length + ConnectionSeal.OVERHEAD];
            jdkOnly.seal(offset, plain, 0, plain.length, back, 0);
            started.openInPlace(offset, back, 0, back.length);
            assertThat(Arrays.copyOf(back, plain.length)).isEqualTo(plain);
            offset += plain.length;
        }
    }

    @Test
    void everyProviderAndEveryWaySealsTheSameBytes() throws Exception {
        for (Provider sealing : providers()) {
            for (Provider opening : providers()) {
                ConnectionSeal a = new ConnectionSeal(aToB, bToA, sealing);
                // A second sealer with the same keys: one Cipher refuses to seal at the same nonce twice.
                ConnectionSeal sameKeys = new ConnectionSeal(aToB, bToA, sealing);
                ConnectionSeal b = new ConnectionSeal(bToA, aToB, opening);
                long offset = 0;
                for (int length : LENGTHS) {
                    byte[] plain = randomBytes(length);
                    byte[] byArrays = new byte[length + ConnectionSeal.OVERHEAD + 3];
                    a.seal(offset, plain, 0, length, byArrays, 3);
                    ByteBuffer byBuffers = ByteBuffer.allocateDirect(length + ConnectionSeal.OVERHEAD);
                    sameKeys.seal(offset, ByteBuffer.wrap(plain), byBuffers);
                    byBuffers.flip();
                    byte[] sealed = new byte[byBuffers.remaining()];
                    byBuffers.get(sealed);
                    assertThat(Arrays.copyOfRange(byArrays, 3, byArrays.length))
                            .as("%s to %s, %d bytes", name(sealing), name(opening), length)
                            .isEqualTo(sealed);

                    byte[] inPlace = Arrays.copyOf(byArrays, byArrays.length);
                    b.openInPlace(offset, inPlace, 3, length + ConnectionSeal.OVERHEAD);
                    assertThat(Arrays.copyOfRange(inPlace, 3, 3 + length)).isEqualTo(plain);
                    ByteBuffer opened = ByteBuffer.allocate(length);
                    b.open(offset, ByteBuffer.wrap(sealed), opened);
                    assertThat(opened.array()).isEqualTo(plain);
                    offset += length + 1;
                }
            }
        }
    }

    @Test
    void anOpenInPlaceRefusesChangedOrMovedBytes() throws Exception {
        for (Provider provider : providers()) {
            ConnectionSeal a = new ConnectionSeal(aToB, bToA, provider);
            ConnectionSeal b = new ConnectionSeal(bToA, aToB, provider);
            byte[] plain = randomBytes(4096);
            byte[] sealed = new byte[4096 + ConnectionSeal.OVERHEAD];
            a.seal(8192, plain, 0, plain.length, sealed, 0);

            byte[] changed = sealed.clone();
            changed[random.nextInt(changed.length)] ^= 1;
            assertThatThrownBy(() -> b.openInPlace(8192, changed, 0, changed.length))
                    .isInstanceOf(AEADBadTagException.class);
            byte[] moved = sealed.clone();
            assertThatThrownBy(() -> b.openInPlace(4096, moved, 0, moved.length))
                    .isInstanceOf(AEADBadTagException.class);
            byte[] ownDirection = sealed.clone();
            assertThatThrownBy(() -> a.openInPlace(8192, ownDirection, 0, ownDirection.length))
                    .as("a frame sealed for the other direction")
                    .isInstanceOf(AEADBadTagException.class);

            b.openInPlace(8192, sealed, 0, sealed.length);
            assertThat(Arrays.copyOf(sealed, plain.length)).isEqualTo(plain);
        }
    }

    /** The JDK's provider (null), and the native one where it loads. */
    private static Provider[] providers() throws InterruptedException {
        Provider nativeProvider = AesGcmProvider.awaitNative(30);
        return nativeProvider == null ? new Provider[] {null} : new Provider[] {null, nativeProvider};
    }

    private static String name(Provider provider) {
        return provider == null ? "JDK" : provider.getName();
    }

    private byte[] randomBytes(int n) {
        byte[] b = new byte[n];
        random.nextBytes(b);
        return b;
    }
}
