package io.traverse.config;

import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.Map;
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

    /** Reads this process's system properties, environment and properties file. */
    public static Map<ConfigKey, Setting> collect() {
        return collect(
                System.getProperties(),
                System.getenv(),
                Path.of("").toAbsolutePath(),
                Thread.currentThread().getContextClassLoader());
    }

    public static Map<ConfigKey, Setting> collect(
            Properties systemProperties,
            Map<String, String> environment,
            Path workingDirectory,
            ClassLoader classLoader) {
        Map<ConfigKey, Setting> settings = new EnumMap<>(ConfigKey.class);
        readFile(workingDirectory, classLoader, settings);
        environment.forEach((name, value) -> {
            if (name.startsWith("TRAVERSE_")) {
                ConfigKey.byEnvironmentName(name)
                        .ifPresentOrElse(
                                k -> settings.put(k, new Setting(value, "environment variable " + name)),
                                () -> warnUnknown(name, "environment variable"));
            }
        });
        for (String name : systemProperties.stringPropertyNames()) {
            if (name.startsWith("traverse.")) {
                String value = systemProperties.getProperty(name);
                ConfigKey.byKey(name)
                        .ifPresentOrElse(
                                k -> settings.put(k, new Setting(value, "system property " + name)),
                                () -> warnUnknown(name, "system property"));
            }
        }
        return settings;
    }

    private static void readFile(Path workingDirectory, ClassLoader classLoader, Map<ConfigKey, Setting> settings) {
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
            ConfigKey.byKey(name)
                    .ifPresentOrElse(k -> settings.put(k, new Setting(value, origin)), () -> warnUnknown(name, origin));
        }
    }

    private static void warnUnknown(String name, String origin) {
        StringBuilder known = new StringBuilder();
        for (ConfigKey k : ConfigKey.values()) {
            known.append(known.length() == 0 ? "" : ", ").append(k.key());
        }
        log.warn("Ignoring unknown configuration key {} (from {}); known keys: {}", name, origin, known);
    }
}
