package io.traverse.config;

import java.util.Objects;
import java.util.function.Function;

/**
 * A configuration key that a connection module declares and reads ({@link
 * io.traverse.spi.ConnectionModuleProvider#keys()}): its name, default, accepted form and the
 * parser that turns its text into the module's value. The node's configuration reads it from the
 * same sources as core's keys ({@link ConfigKey}) and checks it when it is set, so a bad value
 * fails the configuration once, with the key, where it came from and the form in the message.
 *
 * @param <T> the value the module reads
 */
public final class ModuleKey<T> {
    private final String key;
    private final String defaultValue;
    private final String form;
    private final Function<String, T> parser;

    private ModuleKey(String key, String defaultValue, String form, Function<String, T> parser) {
        this.key = key;
        this.defaultValue = defaultValue;
        this.form = form;
        this.parser = parser;
    }

    /**
     * @param key the name, e.g. {@code traverse.splice.ports}
     * @param parser parses a trimmed text; throws {@link IllegalArgumentException} saying what is wrong
     */
    public static <T> ModuleKey<T> of(String key, String defaultValue, String form, Function<String, T> parser) {
        if (!key.startsWith("traverse.")) {
            throw new IllegalArgumentException("a module's key starts with 'traverse.': " + key);
        }
        return new ModuleKey<>(key, Objects.requireNonNull(defaultValue), form, Objects.requireNonNull(parser));
    }

    public String key() {
        return key;
    }

    public String defaultValue() {
        return defaultValue;
    }

    /** The accepted form, for error messages and the configuration table (docs/operations.md). */
    public String form() {
        return form;
    }

    /** {@code traverse.splice.ports} → {@code TRAVERSE_SPLICE_PORTS}. */
    public String environmentName() {
        return ConfigKey.environmentName(key);
    }

    /** The value of {@code text} (trimmed); {@link IllegalArgumentException} when it is not of the form. */
    public T parse(String text) {
        return parser.apply(text == null ? "" : text.trim());
    }

    @Override
    public String toString() {
        return key;
    }
}
