package io.traverse.cli.hub;

import static org.assertj.core.api.Assertions.assertThat;

import io.traverse.config.ConfigKey;
import io.traverse.config.ModuleKeys;
import io.traverse.hub.Hub;
import io.traverse.hub.HubConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The names the docs give users are the program's: every configuration key README.md and docs
 * mention exists (as a node key or a hub file key), every node key is in the configuration table of docs/operations.md and every
 * hub key in docs/operations.md; the metrics table of docs/operations.md lists exactly the metrics
 * a hub serves.
 */
class DocumentedNamesTest {
    private static final Path OPERATIONS = Path.of("..", "docs", "operations.md");
    private static final Path README = Path.of("..", "README.md");
    /** Counters a hub registers on first use, so a fresh hub does not serve them yet. */
    private static final Set<String> REGISTERED_ON_FIRST_USE = Set.of("traverse_hub_relay_failures_total");
    /** Side-channel service names the modules use: they look like keys in the docs but are not settings. */
    private static final Set<String> SIDE_CHANNEL_SERVICES =
            Set.of("traverse.reverse", "traverse.reverse.probe", "traverse.splice");
    /** Keys that are gone, which the docs name so that users who set them learn what replaced them. */
    private static final Set<String> REMOVED = Set.of("traverse.node.id");

    private static String operations() throws Exception {
        return Files.readString(OPERATIONS, StandardCharsets.UTF_8);
    }

    @Test
    void everyDocumentedConfigurationKeyExistsAndEveryKeyIsDocumented() throws Exception {
        String readme = Files.readString(README, StandardCharsets.UTF_8);
        String docs = readme
                + operations()
                + Files.readString(Path.of("..", "docs", "architecture.md"), StandardCharsets.UTF_8);
        Set<String> known = new TreeSet<>(HubSettings.KEYS);
        Arrays.stream(ConfigKey.values()).map(ConfigKey::key).forEach(known::add);
        known.addAll(ModuleKeys.all().keySet());
        known.add(io.traverse.security.ConnectionSeal.PROVIDER_PROPERTY); // the process's, not a node's
        Set<String> mentioned = new TreeSet<>();
        Matcher m = Pattern.compile("`-?D?(traverse\\.[a-z][a-z0-9.]*[a-z0-9])[`=\\s]")
                .matcher(docs);
        while (m.find()) {
            String key = m.group(1);
            if (!key.endsWith(".properties")
                    && !key.endsWith(".jar")
                    && !SIDE_CHANNEL_SERVICES.contains(key)
                    && !REMOVED.contains(key)) {
                mentioned.add(key);
            }
        }
        Set<String> unknown = new TreeSet<>(mentioned);
        unknown.removeAll(known);
        assertThat(unknown)
                .as("keys the docs mention that neither the node nor the hub knows")
                .isEmpty();
        // the node's keys in operations.md's configuration table, the hub's anywhere in operations.md
        String operations = operations();
        Set<String> notInTable = java.util.stream.Stream.concat(
                        Arrays.stream(ConfigKey.values()).map(ConfigKey::key), ModuleKeys.all().keySet().stream())
                .filter(k -> !operations.contains("| `" + k + "` |"))
                .collect(Collectors.toCollection(TreeSet::new));
        assertThat(notInTable)
                .as("node keys missing from docs/operations.md's configuration table")
                .isEmpty();
        Set<String> hubUndocumented = HubSettings.KEYS.stream()
                .filter(k -> !operations.contains(k))
                .collect(Collectors.toCollection(TreeSet::new));
        assertThat(hubUndocumented)
                .as("hub keys docs/operations.md does not mention")
                .isEmpty();
    }

    @Test
    void theMetricsTableListsExactlyWhatAHubServes() throws Exception {
        Set<String> documented = new TreeSet<>();
        Matcher row = Pattern.compile("(?m)^\\| `(traverse_hub_[a-z_]+)` \\|").matcher(operations());
        while (row.find()) {
            documented.add(row.group(1));
        }
        Set<String> served = new TreeSet<>();
        try (Hub hub = Hub.start(HubConfig.builder()
                .bindAddress("127.0.0.1")
                .port(0)
                .httpPort(-1)
                .discoveryPort(-1)
                .name("doc-hub")
                .token("t")
                .build())) {
            Matcher type = Pattern.compile("(?m)^# TYPE (traverse_hub_[a-z_]+) ")
                    .matcher(hub.metrics().scrape());
            while (type.find()) {
                served.add(type.group(1));
            }
        }
        assertThat(served).isNotEmpty();
        Set<String> expected = new TreeSet<>(served);
        expected.addAll(REGISTERED_ON_FIRST_USE);
        assertThat(documented).isEqualTo(expected);
    }
}
