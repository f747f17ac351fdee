package io.traverse.cli.hub;

import static org.assertj.core.api.Assertions.assertThat;

import io.traverse.TraverseConfig;
import io.traverse.config.ConfigSources;
import io.traverse.hub.HubConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The configuration examples of the release archive (dist/src/config) are true: the hub example
 * shows every hub key, and with every example line switched on both files are accepted as they are.
 */
class ConfigExamplesTest {
    private static final Path EXAMPLES = Path.of("..", "dist", "src", "config");
    private static final Pattern EXAMPLE_LINE = Pattern.compile("(?m)^#(traverse\\.[a-z0-9.]+ = .*)$");

    @TempDir
    Path dir;

    /** The example lines, uncommented. */
    private static String switchedOn(String example) {
        Matcher m = EXAMPLE_LINE.matcher(example);
        StringBuilder lines = new StringBuilder();
        while (m.find()) {
            lines.append(m.group(1)).append('\n');
        }
        return lines.toString();
    }

    @Test
    void theHubExampleShowsEveryHubKeyAndIsAValidFile() throws Exception {
        String example = Files.readString(EXAMPLES.resolve("hub.properties"), StandardCharsets.UTF_8);
        Path file = dir.resolve("hub.properties");
        Files.writeString(file, switchedOn(example));
        Properties shown = new Properties();
        shown.load(Files.newBufferedReader(file));
        assertThat(new TreeSet<>(shown.stringPropertyNames()))
                .as("keys with an example line")
                .isEqualTo(new TreeSet<>(HubSettings.KEYS.stream()
                        .filter(k -> !k.equals(HubSettings.TOKEN))
                        .toList()));
        assertThat(example).contains("`traverse.token = TOKEN`");

        // The token file named there does not exist here: point it at one that does.
        Path token = dir.resolve("token");
        Files.writeString(token, "t\n");
        Files.writeString(file, switchedOn(example).replace("/etc/traverse/token", token.toString()));
        HubConfig.Builder builder = HubConfig.builder();
        HubSettings settings = HubSettings.read(file);
        settings.applyTo(builder);
        builder.token(settings.token(null, null, Map.of()));
        HubConfig config = builder.build();
        assertThat(config.name()).contains("site-a");
        assertThat(config.peers()).containsExactly("hub-b.example.org", "192.0.2.7:17000");
        assertThat(config.sshTunnels()).hasSize(1);
        assertThat(config.token()).isEqualTo("t");
        assertThat(config.port()).isEqualTo(HubConfig.DEFAULT_PORT);
        assertThat(config.httpPort()).isEqualTo(HubConfig.DEFAULT_HTTP_PORT);
    }

    @Test
    void theNodeExampleNamesOnlyNodeKeysAndIsAValidFile() throws Exception {
        String example = Files.readString(EXAMPLES.resolve("traverse.properties"), StandardCharsets.UTF_8);
        Files.writeString(dir.resolve(ConfigSources.FILE_NAME), switchedOn(example));
        Map<String, ConfigSources.Setting> settings = ConfigSources.collect(new Properties(), Map.of(), dir, null);
        List<String> shown = EXAMPLE_LINE
                .matcher(example)
                .results()
                .map(r -> r.group(1).split(" = ")[0])
                .toList();
        assertThat(shown).hasSizeGreaterThan(5);
        assertThat(settings.keySet()).containsExactlyInAnyOrderElementsOf(shown);
        TraverseConfig config = TraverseConfig.builderFrom(settings).build();
        assertThat(config.hubs()).hasSize(2);
    }
}
