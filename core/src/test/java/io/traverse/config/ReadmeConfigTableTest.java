package io.traverse.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The README's configuration table stays true: every key is there, with its default. */
class ReadmeConfigTableTest {
    @Test
    void everyKeyIsDocumentedWithItsDefault() throws Exception {
        String readme = Files.readString(Path.of("..", "README.md"));
        for (ConfigKey key : ConfigKey.values()) {
            String row = readme.lines()
                    .filter(l -> l.startsWith("| `" + key.key() + "` |"))
                    .findFirst()
                    .orElse(null);
            assertThat(row).as("README row for %s", key.key()).isNotNull();
            if (!key.defaultValue().isEmpty()) {
                assertThat(row).as("README default of %s", key.key()).contains("`" + key.defaultValue() + "`");
            }
        }
    }
}
