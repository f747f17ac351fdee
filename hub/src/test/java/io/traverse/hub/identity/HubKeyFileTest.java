package io.traverse.hub.identity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HubKeyFileTest {
    @TempDir
    Path dir;

    @Test
    void aHubKeepsItsKeyAndItsIdAcrossRestarts() throws Exception {
        Path file = dir.resolve("state/traverse/hub-17000.key");
        HubKeySource.Loaded first = HubKeySource.file(file).load();
        first.release().close();
        assertThat(first.report()).isEqualTo("generated a new hub key, id " + first.id() + ", in " + file);
        HubKeySource.Loaded again = HubKeySource.file(file).load();
        try {
            assertThat(again.id()).isEqualTo(first.id());
            assertThat(again.report()).isEqualTo("hub key, id " + first.id() + ", from " + file);
        } finally {
            again.release().close();
        }
    }

    @Test
    void aSecondHubOnTheSameKeyFileRefusesToStartUntilTheFirstStops() throws Exception {
        Path file = dir.resolve("shared/hub-17000.key");
        HubKeySource.Loaded running = HubKeySource.file(file).load();
        try {
            assertThatThrownBy(() -> HubKeySource.file(file).load())
                    .hasMessageContaining("another hub runs with the key in " + file)
                    .hasMessageContaining("give this hub its own --state-dir or --key-file");
        } finally {
            running.release().close();
        }
        HubKeySource.Loaded next = HubKeySource.file(file).load();
        next.release().close();
        assertThat(next.id()).isEqualTo(running.id());
    }

    @Test
    void aKeyFileThatIsNotAKeyStopsTheHubIsKeptAndLeavesTheLockFree() throws Exception {
        Path file = dir.resolve("hub.key");
        Files.writeString(file, "site-a-hub\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        assertThatThrownBy(() -> HubKeySource.file(file).load()).hasMessageContaining("does not hold a key");
        assertThat(Files.readString(file)).isEqualTo("site-a-hub\n");
        Files.delete(file);
        HubKeySource.Loaded fresh = HubKeySource.file(file).load();
        fresh.release().close();
        assertThat(fresh.report()).startsWith("generated a new hub key");
    }

    @Test
    void anEphemeralKeyIsNewAtEveryStart() throws Exception {
        assertThat(HubKeySource.ephemeral().load().id())
                .isNotEqualTo(HubKeySource.ephemeral().load().id());
    }
}
