package io.traverse.config;

import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gathers raw settings from, strongest first: system properties, {@code TRAVERSE_*} environment
 * variables, {@code traverse.properties} in the working directory, else on the class path. Keys
 * that look like ours but are not known are warned about (a typo should not pass in silence).
 */
public final class ConfigSources {
    private static final Logger log = LoggerFactory.getLogger(ConfigSources.class);
    public static final String FILE_NAME = "traverse.properties";

    /** A raw value and where it came from, for error messages. */
    public record Setting(String value, String origin) {}

    private ConfigSources() {}

    /** Reads this process's system properties, environment and properties file: settings by key name. */
    public static Map<String, Setting> collect() {
        return collect(
                System.getProperties(),
                System.getenv(),
                Path.of("").toAbsolutePath(),
                Thread.currentThread().getContextClassLoader());
    }

    /**
     * Reads the given sources: settings by key name, core's ({@link ConfigKey}) and the modules'
     * ({@link ModuleKeys}); a later source overrides an earlier one, and unknown keys are logged.
     */
    public static Map<String, Setting> collect(
            Properties systemProperties,
            Map<String, String> environment,
            Path workingDirectory,
            ClassLoader classLoader) {
        Map<String, Setting> settings = new LinkedHashMap<>();
        readFile(workingDirectory, classLoader, settings);
        environment.forEach((name, value) -> {
            if (name.startsWith("TRAVERSE_")) {
                keyForEnvironmentName(name)
                        .ifPresentOrElse(
                                k -> settings.put(k, new Setting(value, "environment variable " + name)),
                                () -> warnUnknown(name, "environment variable"));
            }
        });
        for (String name : systemProperties.stringPropertyNames()) {
            if (name.startsWith("traverse.")) {
                String value = systemProperties.getProperty(name);
                known(name)
                        .ifPresentOrElse(
                                k -> settings.put(k, new Setting(value, "system property " + name)),
                                () -> warnUnknown(name, "system property"));
            }
        }
        return settings;
    }

    /** True if core ({@link ConfigKey}) or a module on the class path ({@link ModuleKeys}) declares {@code key}. */
    public static boolean knows(String key) {
        return ConfigKey.byKey(key).isPresent() || ModuleKeys.byKey(key).isPresent();
    }

    private static Optional<String> known(String name) {
        return knows(name) ? Optional.of(name) : Optional.empty();
    }

    private static Optional<String> keyForEnvironmentName(String name) {
        return ConfigKey.byEnvironmentName(name)
                .map(ConfigKey::key)
                .or(() -> ModuleKeys.byEnvironmentName(name).map(ModuleKey::key));
    }

    private static void readFile(Path workingDirectory, ClassLoader classLoader, Map<String, Setting> settings) {
        Path file = workingDirectory.resolve(FILE_NAME);
        Properties properties = new Properties();
        String origin;
        try {
            if (Files.isRegularFile(file)) {
                try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                    properties.load(reader);
                }
                origin = file.toString();
            } else {
                URL resource = classLoader == null ? null : classLoader.getResource(FILE_NAME);
                if (resource == null) {
                    return;
                }
                try (InputStream in = resource.openStream()) {
                    properties.load(new java.io.InputStreamReader(in, StandardCharsets.UTF_8));
                }
                origin = resource.toString();
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + FILE_NAME + ": " + e.getMessage(), e);
        }
        for (String name : properties.stringPropertyNames()) {
            String value = properties.getProperty(name);
            known(name)
                    .ifPresentOrElse(k -> settings.put(k, new Setting(value, origin)), () -> warnUnknown(name, origin));
        }
    }

    private static void warnUnknown(String name, String origin) {
        if (name.equals("traverse.node.id")) {
            log.warn(
                    "Ignoring traverse.node.id (from {}): a node's id is now a digest of its key; set traverse.key to a"
                            + " file to keep one id across restarts (docs/security.md)",
                    origin);
            return;
        }
        StringBuilder known = new StringBuilder();
        for (ConfigKey k : ConfigKey.values()) {
            known.append(known.length() == 0 ? "" : ", ").append(k.key());
        }
        for (String k : ModuleKeys.all().keySet()) {
            known.append(", ").append(k);
        }
        log.warn("Ignoring unknown configuration key {} (from {}); known keys: {}", name, origin, known);
    }
}
