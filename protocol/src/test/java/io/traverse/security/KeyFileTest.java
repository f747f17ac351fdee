package io.traverse.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KeyFileTest {
    @TempDir
    Path dir;

    @Test
    void aNewKeyIsKeptForTheOwnerOnlyAndReadBack() throws Exception {
        Path file = dir.resolve("state/traverse.key");
        KeyFile.Loaded first = KeyFile.loadOrCreate(file, "node");
        assertThat(first.created()).isTrue();
        assertThat(first.report())
                .isEqualTo("generated a new node key, id " + first.key().id() + ", in " + file);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
                .isEqualTo("rw-------");
        assertThat(Files.readString(file))
                .contains(
                        "BEGIN PRIVATE KEY",
                        "BEGIN PUBLIC KEY",
                        first.key().id().toString());
        KeyFile.Loaded again = KeyFile.loadOrCreate(file, "node");
        assertThat(again.created()).isFalse();
        assertThat(again.key().id()).isEqualTo(first.key().id());
        assertThat(again.report()).isEqualTo("node key, id " + first.key().id() + ", from " + file);
        try (var names = Files.list(file.getParent())) {
            assertThat(names).containsExactly(file); // no temporary file left behind
        }
    }

    @Test
    void aKeyOthersMayReadIsRefused() throws Exception {
        Path file = dir.resolve("hub.key");
        KeyFile.loadOrCreate(file, "hub");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
        assertThatThrownBy(() -> KeyFile.load(file, "hub"))
                .isInstanceOf(KeyFile.KeyFileException.class)
                .hasMessageContaining("may be read by others (rw-r--r--)")
                .hasMessageContaining("chmod 600 " + file);
    }

    @Test
    void aFileWithoutAKeyIsRefusedNotReplaced() throws Exception {
        Path file = dir.resolve("hub.key");
        Files.writeString(file, "hello\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        assertThatThrownBy(() -> KeyFile.loadOrCreate(file, "hub"))
                .hasMessageContaining("does not hold a key")
                .hasMessageContaining("delete it to give this hub a new key");
        assertThat(Files.readString(file)).isEqualTo("hello\n");
    }

    @Test
    void aFileWhoseHalvesDoNotMatchIsRefused() throws Exception {
        Path one = dir.resolve("one.key");
        Path two = dir.resolve("two.key");
        KeyFile.loadOrCreate(one, "node");
        KeyFile.loadOrCreate(two, "node");
        String a = Files.readString(one);
        String b = Files.readString(two);
        String mixed = a.substring(0, a.indexOf("-----BEGIN PUBLIC KEY-----"))
                + b.substring(b.indexOf("-----BEGIN PUBLIC KEY-----"));
        Files.writeString(one, mixed);
        assertThatThrownBy(() -> KeyFile.load(one, "node")).hasMessageContaining("does not belong to the private key");
    }
}
