package io.traverse.config;

import io.traverse.spi.ConnectionModuleProvider;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The keys that the connection modules on the class path declare, by name: the configuration
 * reads them from the same sources as core's and rejects what neither knows.
 */
public final class ModuleKeys {
    private static final Logger log = LoggerFactory.getLogger(ModuleKeys.class);

    private ModuleKeys() {}

    /** Found once per class loader that loaded this class: the class path does not change under a running JVM. */
    private static final class OnClassPath {
        static final Map<String, ModuleKey<?>> KEYS = load();

        private static Map<String, ModuleKey<?>> load() {
            Map<String, ModuleKey<?>> keys = new LinkedHashMap<>();
            for (ConnectionModuleProvider provider :
                    ServiceLoader.load(ConnectionModuleProvider.class, ModuleKeys.class.getClassLoader())) {
                for (ModuleKey<?> key : provider.keys()) {
                    ModuleKey<?> before = keys.putIfAbsent(key.key(), key);
                    if (before != null && before != key) {
                        log.warn(
                                "Two modules declare configuration key {}; {} reads the first one's",
                                key.key(),
                                provider.name());
                    }
                    if (ConfigKey.byKey(key.key()).isPresent()) {
                        log.warn("Module {} declares {}, which is core's; core's is used", provider.name(), key.key());
                        keys.remove(key.key());
                    }
                }
            }
            return Collections.unmodifiableMap(keys);
        }
    }

    /** Every module key on the class path, by name, in the order the modules were found. */
    public static Map<String, ModuleKey<?>> all() {
        return OnClassPath.KEYS;
    }

    public static Optional<ModuleKey<?>> byKey(String key) {
        return Optional.ofNullable(OnClassPath.KEYS.get(key));
    }

    public static Optional<ModuleKey<?>> byEnvironmentName(String name) {
        for (ModuleKey<?> k : OnClassPath.KEYS.values()) {
            if (k.environmentName().equals(name)) {
                return Optional.of(k);
            }
        }
        return Optional.empty();
    }
}
