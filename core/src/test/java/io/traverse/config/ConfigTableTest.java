package io.traverse.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The configuration table in docs/operations.md stays true: every key is there, with its default. */
class ConfigTableTest {
    @Test
    void everyKeyIsDocumentedWithItsDefault() throws Exception {
        String operations = Files.readString(Path.of("..", "docs", "operations.md"));
        for (ConfigKey key : ConfigKey.values()) {
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
