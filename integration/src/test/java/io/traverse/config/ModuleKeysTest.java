package io.traverse.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.traverse.TraverseConfig;
import io.traverse.TraverseConfigException;
import io.traverse.spi.ConnectionModuleProvider;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

/**
 * The keys the modules declare, with the modules on this class path (direct, reverse, routed; the
 * splice module's are checked in its own tests): each has one owner, is read
 * from the same sources as core's, is checked when it is set, and is in docs/operations.md.
 */
class ModuleKeysTest {
    @Test
    void everyModuleKeyHasOneOwnerAndIsNotCores() {
        Map<String, String> owners = new HashMap<>();
        for (ConnectionModuleProvider p : ServiceLoader.load(ConnectionModuleProvider.class)) {
            for (ModuleKey<?> key : p.keys()) {
                assertThat(owners.put(key.key(), p.name()))
                        .as("%s declared twice", key.key())
                        .isNull();
                assertThat(ConfigKey.byKey(key.key()))
                        .as("%s is core's too", key.key())
                        .isEmpty();
                assertThat(key.parse(key.defaultValue()))
                        .as("the default of %s parses", key.key())
                        .isNotNull();
            }
        }
        assertThat(owners)
                .containsEntry("traverse.ssh.tunnels", "direct")
                .containsEntry("traverse.portmap", "direct")
                .containsEntry("traverse.routed.receive.budget", "routed");
        assertThat(ModuleKeys.all().keySet()).isEqualTo(owners.keySet());
    }

    @Test
    void aModuleKeyIsReadFromTheEnvironmentAndCheckedWhenSet(@org.junit.jupiter.api.io.TempDir Path dir) {
        Map<String, ConfigSources.Setting> settings =
                ConfigSources.collect(new Properties(), Map.of("TRAVERSE_PORTMAP_LEASE", "2h"), dir, null);
        assertThat(settings).containsKey("traverse.portmap.lease");
        TraverseConfig config = TraverseConfig.builderFrom(settings).build();
        assertThat(config.get(ModuleKeys.byKey("traverse.portmap.lease").orElseThrow()))
                .isEqualTo(java.time.Duration.ofHours(2));

        assertThatThrownBy(() -> TraverseConfig.builder().set("traverse.portmap.lease", "25h"))
                .isInstanceOf(TraverseConfigException.class)
                .hasMessageContaining(
                        "traverse.portmap.lease = '25h' (from code) is invalid: the lease must be from 1m to 24h")
                .hasMessageContaining("expected a duration from 1m to 24h");
        assertThatThrownBy(() -> TraverseConfig.builder().set("traverse.portmap.leaze", "1h"))
                .isInstanceOf(TraverseConfigException.class)
                .hasMessage("unknown configuration key traverse.portmap.leaze");
    }

    @Test
    void everyModuleKeyIsDocumentedWithItsDefault() throws Exception {
        String operations = Files.readString(Path.of("..", "docs", "operations.md"));
        for (ModuleKey<?> key : ModuleKeys.all().values()) {
            String row = operations
                    .lines()
                    .filter(l -> l.startsWith("| `" + key.key() + "` |"))
                    .findFirst()
                    .orElse(null);
            assertThat(row).as("operations.md row for %s", key.key()).isNotNull();
            if (!key.defaultValue().isEmpty()) {
                assertThat(row).as("operations.md default of %s", key.key()).contains("`" + key.defaultValue() + "`");
            }
        }
    }
}
