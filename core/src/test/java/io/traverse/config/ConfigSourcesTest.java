package io.traverse.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.traverse.TraverseConfig;
import io.traverse.TraverseConfigException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where settings come from and which one wins: system property, environment, working-directory file, class path, default. */
class ConfigSourcesTest {
    @TempDir
    Path workDir;

    @TempDir
    Path classpathDir;

    private final Properties props = new Properties();
    private final Map<String, String> env = new HashMap<>();
    private URLClassLoader classLoader;

    @BeforeEach
    void classPath() throws IOException {
        classLoader = new URLClassLoader(new URL[] {classpathDir.toUri().toURL()}, null);
    }

    @AfterEach
    void close() throws IOException {
        classLoader.close();
    }

    private void workFile(String content) throws IOException {
        Files.writeString(workDir.resolve(ConfigSources.FILE_NAME), content, StandardCharsets.UTF_8);
    }

    private void classpathFile(String content) throws IOException {
        Files.writeString(classpathDir.resolve(ConfigSources.FILE_NAME), content, StandardCharsets.UTF_8);
    }

    private Map<String, ConfigSources.Setting> collect() {
        return ConfigSources.collect(props, env, workDir, classLoader);
    }

    private TraverseConfig config() {
        return TraverseConfig.builderFrom(collect()).build();
    }

    @Test
    void precedenceIsPropertyThenEnvironmentThenWorkingDirectoryThenClassPathThenDefault() throws IOException {
        assertThat(collect()).isEmpty();
        assertThat(config().connectStagger()).isEqualTo(Duration.ofMillis(100)); // default

        classpathFile("traverse.connect.stagger=40ms\n");
        assertThat(collect().get(ConfigKey.CONNECT_STAGGER.key()).origin()).contains(ConfigSources.FILE_NAME);
        assertThat(config().connectStagger()).isEqualTo(Duration.ofMillis(40));

        workFile("traverse.connect.stagger=30ms\n");
        assertThat(collect().get(ConfigKey.CONNECT_STAGGER.key()))
                .isEqualTo(new ConfigSources.Setting(
                        "30ms", workDir.resolve(ConfigSources.FILE_NAME).toString()));
        assertThat(config().connectStagger()).isEqualTo(Duration.ofMillis(30));

        env.put("TRAVERSE_CONNECT_STAGGER", "20ms");
        assertThat(collect().get(ConfigKey.CONNECT_STAGGER.key()))
                .isEqualTo(new ConfigSources.Setting("20ms", "environment variable TRAVERSE_CONNECT_STAGGER"));
        assertThat(config().connectStagger()).isEqualTo(Duration.ofMillis(20));

        props.setProperty("traverse.connect.stagger", "10ms");
        assertThat(collect().get(ConfigKey.CONNECT_STAGGER.key()))
                .isEqualTo(new ConfigSources.Setting("10ms", "system property traverse.connect.stagger"));
        assertThat(config().connectStagger()).isEqualTo(Duration.ofMillis(10));
    }

    @Test
    void eachSourceContributesTheKeysItHas() throws IOException {
        classpathFile("traverse.accept.backlog=7\ntraverse.token=from-classpath\n");
        env.put("TRAVERSE_HANDSHAKE_PENDING", "9");
        props.setProperty("traverse.key", "prop-node.key");
        props.setProperty("unrelated.key", "ignored");
        env.put("PATH", "/bin");

        TraverseConfig c = config();
        assertThat(c.acceptBacklog()).isEqualTo(7);
        assertThat(c.token()).contains("from-classpath");
        assertThat(c.maxPendingHandshakes()).isEqualTo(9);
        assertThat(c.keyFile().map(Object::toString)).contains("prop-node.key");
        assertThat(c.connectTimeout()).isEqualTo(Duration.ofSeconds(30)); // untouched default
    }

    @Test
    void workingDirectoryFileHidesTheClassPathFileEntirely() throws IOException {
        classpathFile("traverse.accept.backlog=7\n");
        workFile("traverse.token=from-work-dir\n");
        TraverseConfig c = config();
        assertThat(c.token()).contains("from-work-dir");
        assertThat(c.acceptBacklog()).as("only one properties file is read").isEqualTo(50);
    }

    @Test
    void invalidValueNamesKeyValueOriginAndForm() throws IOException {
        workFile("traverse.port.range=5000-abc\n");
        assertThatThrownBy(this::config)
                .isInstanceOf(TraverseConfigException.class)
                .hasMessageContaining("traverse.port.range")
                .hasMessageContaining("5000-abc")
                .hasMessageContaining(workDir.resolve(ConfigSources.FILE_NAME).toString())
                .hasMessageContaining(ConfigKey.PORT_RANGE.form());

        Files.delete(workDir.resolve(ConfigSources.FILE_NAME));
        env.put("TRAVERSE_ACCEPT_BACKLOG", "many");
        assertThatThrownBy(this::config)
                .hasMessageContaining("traverse.accept.backlog")
                .hasMessageContaining("many")
                .hasMessageContaining("environment variable TRAVERSE_ACCEPT_BACKLOG");
    }

    @Test
    void unknownKeysAreWarnedAboutAndIgnored() throws IOException {
        props.setProperty("traverse.hubz", "typo:1");
        props.setProperty("traverse.token", "secret");
        env.put("TRAVERSE_MODULEZ", "direct");
        env.put("TRAVERSE_ACCEPT_BACKLOG", "12");
        workFile("traverse.cache.tll=1m\ntraverse.cache.ttl=2m\n");

        PrintStream original = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        Map<String, ConfigSources.Setting> settings;
        try {
            System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
            settings = collect();
        } finally {
            System.setErr(original);
        }
        TraverseConfig c = TraverseConfig.builderFrom(settings).build();
        assertThat(c.token()).contains("secret");
        assertThat(c.acceptBacklog()).isEqualTo(12);
        assertThat(c.cacheTtl()).isEqualTo(Duration.ofMinutes(2));
        assertThat(c.hubs()).isEmpty();
        assertThat(settings)
                .containsOnlyKeys(ConfigKey.TOKEN.key(), ConfigKey.ACCEPT_BACKLOG.key(), ConfigKey.CACHE_TTL.key());
        // slf4j-simple writes warnings to System.err: each unknown key is named once.
        String log = captured.toString(StandardCharsets.UTF_8);
        assertThat(log)
                .contains("traverse.hubz")
                .contains("TRAVERSE_MODULEZ")
                .contains("traverse.cache.tll")
                .doesNotContain("secret");
    }

    @Test
    void environmentAndKeyNamesCorrespond() {
        for (ConfigKey key : ConfigKey.values()) {
            assertThat(key.key()).startsWith("traverse.");
            assertThat(key.environmentName()).startsWith("TRAVERSE_").doesNotContain(".");
            assertThat(ConfigKey.byKey(key.key())).contains(key);
            assertThat(ConfigKey.byEnvironmentName(key.environmentName())).contains(key);
        }
        assertThat(ConfigKey.PORT_RANGE.environmentName()).isEqualTo("TRAVERSE_PORT_RANGE");
        assertThat(ConfigKey.byKey("traverse.nope")).isEmpty();
    }
}
