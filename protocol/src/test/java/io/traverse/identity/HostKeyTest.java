package io.traverse.identity;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The host key: one per kernel boot and network namespace, and none where that cannot be known. */
class HostKeyTest {
    @Test
    void sameBootAndNamespaceGiveTheSameKeyAndAnotherNamespaceAnother() {
        String key = HostKey.of("4a3c9f1e-0b5d-4c7e-9a51-2f6d8e0c1b3a", "net:[4026531840]");
        assertThat(key).hasSize(16).matches("[a-z2-7]+");
        assertThat(HostKey.isWellFormed(key)).isTrue();
        assertThat(HostKey.of("4a3c9f1e-0b5d-4c7e-9a51-2f6d8e0c1b3a", "net:[4026531840]"))
                .isEqualTo(key);
        // Another namespace of the same kernel has its own loopback: another key.
        assertThat(HostKey.of("4a3c9f1e-0b5d-4c7e-9a51-2f6d8e0c1b3a", "net:[4026532301]"))
                .isNotEqualTo(key);
        // The same namespace number after a reboot is another stack too.
        assertThat(HostKey.of("0d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6", "net:[4026531840]"))
                .isNotEqualTo(key);
    }

    @Test
    void readsTheBootIdAndTheNamespaceLink(@TempDir Path dir) throws IOException {
        Path bootId = Files.writeString(dir.resolve("boot_id"), "4a3c9f1e-0b5d-4c7e-9a51-2f6d8e0c1b3a\n");
        Path link = Files.createSymbolicLink(dir.resolve("net"), Path.of("net:[4026531840]"));
        assertThat(HostKey.of(bootId, link))
                .isEqualTo(HostKey.of("4a3c9f1e-0b5d-4c7e-9a51-2f6d8e0c1b3a", "net:[4026531840]"));
        // Either missing (not Linux, /proc hidden): no key, and callers compare addresses instead.
        assertThat(HostKey.of(dir.resolve("missing"), link)).isNull();
        assertThat(HostKey.of(bootId, dir.resolve("missing"))).isNull();
        assertThat(HostKey.of(bootId, bootId)).as("not a link").isNull();
    }

    @Test
    void thisJvmHasAKeyWhereProcTellsItsStack() {
        boolean linux = Files.isReadable(Path.of("/proc/sys/kernel/random/boot_id"))
                && Files.isSymbolicLink(Path.of("/proc/self/ns/net"));
        assertThat(HostKey.local().isPresent()).isEqualTo(linux);
        HostKey.local().ifPresent(k -> assertThat(HostKey.isWellFormed(k)).isTrue());
    }

    @Test
    void wellFormedKeys() {
        assertThat(HostKey.isWellFormed("a")).isTrue();
        assertThat(HostKey.isWellFormed("a".repeat(32))).isTrue();
        assertThat(HostKey.isWellFormed("")).isFalse();
        assertThat(HostKey.isWellFormed("a".repeat(33))).isFalse();
        assertThat(HostKey.isWellFormed("ab-c")).isFalse();
        assertThat(HostKey.isWellFormed("ABC")).isFalse();
    }
}
