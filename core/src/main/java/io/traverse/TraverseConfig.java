package io.traverse;

import io.traverse.config.ConfigKey;
import io.traverse.config.ConfigSources;
import io.traverse.config.ConfigValues;
import io.traverse.config.HttpProxy;
import io.traverse.config.ModuleKey;
import io.traverse.config.ModuleKeys;
import io.traverse.config.PortRange;
import io.traverse.firewall.FirewallRule;
import io.traverse.identity.IpLiterals;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.regex.Pattern;

/**
 * The settings of one Traverse node, read once and validated here; immutable.
 *
 * <p>{@link #load()} reads system properties, then {@code TRAVERSE_*} environment variables, then
 * {@code traverse.properties} (working directory, then class path), then defaults. The builder
 * sets the same values from code: {@code TraverseConfig.builder().bind("127.0.0.1").build()}.
 * Core's keys are listed in {@link ConfigKey}, the modules' in their {@link
 * io.traverse.spi.ConnectionModuleProvider#keys()}; all are in docs/operations.md, "Configuration keys".
 *
 * <p>This is the one place every key is read, checked against the others and named in its error;
 * the text forms of the values are parsed in {@link ConfigValues} and {@code io.traverse.config}.
 */
public final class TraverseConfig {
    private final List<InetSocketAddress> hubs;
    private final List<String> modules;
    private final boolean modulesConfigured;
    private final String token;
    private final java.nio.file.Path keyFile;
    private final InetAddress bindAddress;
    private final PortRange portRange;
    private final List<InetSocketAddress> externals;
    private final List<FirewallRule> firewall;
    private final Duration connectTimeout;
    private final Duration connectStagger;
    private final Duration handshakeTimeout;
    private final int maxPendingHandshakes;
    private final int acceptBacklog;
    private final Duration cacheTtl;
    private final boolean discovery;
    private final int discoveryPort;
    private final Duration hubKeepalive;
    private final Duration hubTimeout;
    private final boolean hubDataLink;
    private final boolean hubDataLinkTls;
    private final boolean encryptRelayed;
    private final boolean encryptKernelSockets;
    private final HttpProxy httpProxy;
    private final io.traverse.settings.LongPollSettings longPoll;
    /** The modules' keys that were set, by name: their parsed values. */
    private final Map<String, Object> moduleValues;

    private TraverseConfig(Builder b) {
        hubs = List.copyOf(b.hubs);
        modules = List.copyOf(b.modules);
        modulesConfigured = b.modulesConfigured;
        token = b.token;
        keyFile = b.keyFile;
        bindAddress = b.bindAddress;
        portRange = b.portRange;
        externals = List.copyOf(b.externals);
        firewall = List.copyOf(b.firewall);
        connectTimeout = b.connectTimeout;
        connectStagger = b.connectStagger;
        handshakeTimeout = b.handshakeTimeout;
        maxPendingHandshakes = b.maxPendingHandshakes;
        acceptBacklog = b.acceptBacklog;
        cacheTtl = b.cacheTtl;
        discovery = b.discovery;
        discoveryPort = b.discoveryPort;
        hubKeepalive = b.hubKeepalive;
        hubTimeout = b.hubTimeout;
        hubDataLink = b.hubDataLink;
        hubDataLinkTls = b.hubDataLinkTls;
        encryptRelayed = b.encryptRelayed;
        encryptKernelSockets = b.encryptKernelSockets;
        httpProxy = b.httpProxy();
        longPoll = b.longPoll();
        moduleValues = Map.copyOf(b.moduleValues);
    }

    /** How the hub link goes through an HTTP proxy, and the long-polling parameters. */
    public io.traverse.settings.LongPollSettings longPoll() {
        return longPoll;
    }

    /** Settings from system properties, environment, {@code traverse.properties} and defaults. */
    public static TraverseConfig load() {
        return builderFrom(ConfigSources.collect())
                .jdkProxyProperties(System.getProperties())
                .build();
    }

    /** Defaults only. */
    public static TraverseConfig defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A builder preloaded with the given raw settings (each validated as it is set). */
    public static Builder builderFrom(Map<String, ConfigSources.Setting> settings) {
        Builder b = new Builder();
        settings.forEach((key, setting) -> b.set(key, setting.value(), setting.origin()));
        return b;
    }

    /** Hubs to link to, as configured (host names unresolved). */
    public List<InetSocketAddress> hubs() {
        return hubs;
    }

    /** Module names in the order to try them. */
    public List<String> modules() {
        return modules;
    }

    /** True if the module list was set explicitly (then every module in it must be present). */
    public boolean modulesConfigured() {
        return modulesConfigured;
    }

    public Optional<String> token() {
        return token.isEmpty() ? Optional.empty() : Optional.of(token);
    }

    /** The file that keeps the node's key (its id is the key's); empty: a new key at every start. */
    public Optional<java.nio.file.Path> keyFile() {
        return Optional.ofNullable(keyFile);
    }

    /** The address to listen on; empty means every interface. */
    public Optional<InetAddress> bindAddress() {
        return Optional.ofNullable(bindAddress);
    }

    public PortRange portRange() {
        return portRange;
    }

    /** External addresses; port 0 means "the listening port". */
    public List<InetSocketAddress> externals() {
        return externals;
    }

    public List<FirewallRule> firewall() {
        return firewall;
    }

    public Duration connectTimeout() {
        return connectTimeout;
    }

    public Duration connectStagger() {
        return connectStagger;
    }

    public Duration handshakeTimeout() {
        return handshakeTimeout;
    }

    public int maxPendingHandshakes() {
        return maxPendingHandshakes;
    }

    public int acceptBacklog() {
        return acceptBacklog;
    }

    public Duration cacheTtl() {
        return cacheTtl;
    }

    /** True if the node looks for hubs on its site network when none is configured. */
    public boolean discovery() {
        return discovery;
    }

    /** The UDP port hubs answer discovery probes on. */
    public int discoveryPort() {
        return discoveryPort;
    }

    /** How often the node pings its hub. */
    public Duration hubKeepalive() {
        return hubKeepalive;
    }

    /** The limit for the hub link handshake, lookups, name binding and side-channel requests that give none. */
    public Duration hubTimeout() {
        return hubTimeout;
    }

    /** True if relayed connections travel on a data link beside the hub link (docs/protocol.md, "Data links"). */
    public boolean hubDataLink() {
        return hubDataLink;
    }

    /** True if the data link runs TLS under the node's key, like the hub link (docs/security.md). */
    public boolean hubDataLinkTls() {
        return hubDataLinkTls;
    }

    /** True if relayed connections are encrypted end to end ({@code traverse.encrypt=relayed}, the default). */
    public boolean encryptRelayed() {
        return encryptRelayed;
    }

    /**
     * True if direct, reverse and spliced connections run TLS 1.3 too, and kernel sockets in clear
     * are refused ({@code traverse.encrypt=all}).
     */
    public boolean encryptKernelSockets() {
        return encryptKernelSockets;
    }

    /** The HTTP proxy hubs are reached through, if any. */
    public Optional<HttpProxy> httpProxy() {
        return Optional.ofNullable(httpProxy);
    }

    /**
     * The value of a module's key ({@link io.traverse.spi.ConnectionModuleProvider#keys()}): as set,
     * checked when it was set, else its default.
     */
    public <T> T get(ModuleKey<T> key) {
        Object set = moduleValues.get(key.key());
        if (set != null) {
            @SuppressWarnings("unchecked") // stored by set(...) from this key's own parser
            T value = (T) set;
            return value;
        }
        return key.parse(key.defaultValue());
    }

    @Override
    public String toString() {
        return "TraverseConfig{hubs=" + hubs + ", modules=" + modules + ", token=" + (token.isEmpty() ? "none" : "****")
                + ", key=" + (keyFile == null ? "(new)" : keyFile) + ", bind="
                + (bindAddress == null ? "*" : bindAddress.getHostAddress())
                + ", portRange=" + portRange + ", externals=" + externals + ", firewall=" + firewall
                + ", connectTimeout=" + connectTimeout + ", connectStagger=" + connectStagger
                + ", handshakeTimeout=" + handshakeTimeout + ", maxPendingHandshakes=" + maxPendingHandshakes
                + ", acceptBacklog=" + acceptBacklog + ", cacheTtl=" + cacheTtl + ", discovery=" + discovery
                + ", discoveryPort=" + discoveryPort
                + ", hubKeepalive=" + hubKeepalive + ", hubTimeout=" + hubTimeout + ", hubDataLink=" + hubDataLink
                + ", hubDataLinkTls=" + hubDataLinkTls
                + ", encryptRelayed=" + encryptRelayed
                + ", encryptKernelSockets=" + encryptKernelSockets
                + (httpProxy == null ? "" : ", httpProxy=" + httpProxy)
                + (moduleValues.isEmpty() ? "" : ", modules' keys=" + new java.util.TreeMap<>(moduleValues)) + "}";
    }

    /** Builds a configuration; every setter validates. */
    public static final class Builder {
        private static final Pattern MODULE_NAME = Pattern.compile("[a-z][a-z0-9-]{0,31}");

        private List<InetSocketAddress> hubs = List.of();
        private List<String> modules;
        private boolean modulesConfigured;
        private String token = "";
        private java.nio.file.Path keyFile;
        private InetAddress bindAddress;
        private PortRange portRange = PortRange.ANY;
        private List<InetSocketAddress> externals = List.of();
        private List<FirewallRule> firewall = List.of();
        private Duration connectTimeout;
        private Duration connectStagger;
        private Duration handshakeTimeout;
        private int maxPendingHandshakes;
        private int acceptBacklog;
        private Duration cacheTtl;
        private boolean discovery;
        private int discoveryPort;
        private Duration hubKeepalive;
        private Duration hubTimeout;
        private boolean hubDataLink;
        private boolean hubDataLinkTls;
        private boolean encryptRelayed = true;
        private boolean encryptKernelSockets;
        private String httpProxyText = "";
        private String httpProxyOrigin = "default";
        private String nonProxyHostsText = "";
        private Properties jdkProxyProperties = new Properties();
        private String httpTunnel;
        private Duration longPollServerTimeout;
        private Duration longPollClientTimeout;
        private Duration longPollRegenerate;
        private int longPollBatchSize;
        private Duration longPollBatchTimespan;
        private final Map<String, Object> moduleValues = new java.util.LinkedHashMap<>();

        private Builder() {
            for (ConfigKey key : ConfigKey.values()) {
                set(key, key.defaultValue(), "default");
            }
            modulesConfigured = false;
        }

        /**
         * Sets a key from its text form.
         *
         * @throws TraverseConfigException naming the key, the value, where it came from and the accepted form
         */
        public Builder set(ConfigKey key, String value, String origin) {
            String v = value == null ? "" : value.trim();
            try {
                switch (key) {
                    case HUBS -> hubs = ConfigValues.endpoints(v, false);
                    case MODULES -> modules(ConfigValues.names(v));
                    case TOKEN -> token = v;
                    case KEY_FILE -> keyFile = v.isEmpty() ? null : java.nio.file.Path.of(v);
                    case BIND -> bindAddress = v.isEmpty() || v.equals("*") ? null : IpLiterals.parse(v);
                    case PORT_RANGE -> portRange = PortRange.parse(v);
                    case EXTERNAL -> externals = ConfigValues.endpoints(v, true);
                    case FIREWALL -> firewall = ConfigValues.firewallRules(v);
                    case CONNECT_TIMEOUT -> connectTimeout = ConfigValues.positive(ConfigValues.duration(v));
                    case CONNECT_STAGGER -> connectStagger = ConfigValues.duration(v);
                    case HANDSHAKE_TIMEOUT -> handshakeTimeout = ConfigValues.positive(ConfigValues.duration(v));
                    case HANDSHAKE_PENDING -> maxPendingHandshakes = ConfigValues.positive(v);
                    case ACCEPT_BACKLOG -> acceptBacklog = ConfigValues.positive(v);
                    case CACHE_TTL -> cacheTtl = ConfigValues.duration(v);
                    case DISCOVERY -> discovery = ConfigValues.bool(v);
                    case DISCOVERY_PORT -> discoveryPort = ConfigValues.port(v);
                    case HUB_KEEPALIVE -> hubKeepalive = ConfigValues.positive(ConfigValues.duration(v));
                    case HUB_TIMEOUT -> hubTimeout = ConfigValues.positive(ConfigValues.duration(v));
                    case HUB_DATA_LINK -> hubDataLink = ConfigValues.bool(v);
                    case HUB_DATA_LINK_TLS -> hubDataLinkTls = ConfigValues.bool(v);
                    case ENCRYPT -> {
                        String policy = ConfigValues.oneOf(v, "relayed", "all", "none");
                        encryptRelayed = !policy.equals("none");
                        encryptKernelSockets = policy.equals("all");
                    }
                    case HTTP_PROXY -> {
                        HttpProxy.parse(
                                v.isEmpty() ? "none" : v, HttpProxy.JDK_NON_PROXY_HOSTS, origin); // validates now
                        httpProxyText = v;
                        httpProxyOrigin = origin;
                    }
                    case HTTP_NON_PROXY_HOSTS -> nonProxyHostsText = v;
                    case HTTP_TUNNEL -> httpTunnel = ConfigValues.oneOf(v, "auto", "connect", "longpoll");
                    case LONGPOLL_SERVER_TIMEOUT -> longPollServerTimeout = ConfigValues.duration(v);
                    case LONGPOLL_CLIENT_TIMEOUT -> longPollClientTimeout = ConfigValues.duration(v);
                    case LONGPOLL_CLIENT_REGENERATE -> longPollRegenerate = ConfigValues.duration(v);
                    case LONGPOLL_BATCH_SIZE -> longPollBatchSize = ConfigValues.size(v);
                    case LONGPOLL_BATCH_TIMESPAN -> longPollBatchTimespan = ConfigValues.duration(v);
                    default -> throw new IllegalStateException("unhandled key " + key);
                }
            } catch (IllegalArgumentException e) {
                String shown = key == ConfigKey.HTTP_PROXY ? HttpProxy.withoutPassword(value) : value;
                throw new TraverseConfigException(
                        key.key() + " = '" + shown + "' (from " + origin + ") is invalid: " + e.getMessage()
                                + "; expected " + key.form(),
                        e);
            }
            return this;
        }

        /** Sets a key by name, e.g. {@code set("traverse.port.range", "5000-5100")}: core's or a module's. */
        public Builder set(String key, String value) {
            return set(key, value, "code");
        }

        /**
         * Sets a key by name, core's ({@link ConfigKey}) or one that a module on the class path
         * declares ({@link ModuleKeys}).
         *
         * @throws TraverseConfigException for a key nobody declares, or a value not of its form
         */
        public Builder set(String key, String value, String origin) {
            Optional<ConfigKey> core = ConfigKey.byKey(key);
            if (core.isPresent()) {
                return set(core.get(), value, origin);
            }
            ModuleKey<?> module = ModuleKeys.byKey(key)
                    .orElseThrow(() -> new TraverseConfigException("unknown configuration key " + key));
            return set(module, value, origin);
        }

        /** Sets a module's key from its text form, checked with the module's parser. */
        public Builder set(ModuleKey<?> key, String value, String origin) {
            try {
                moduleValues.put(key.key(), key.parse(value));
            } catch (IllegalArgumentException e) {
                throw new TraverseConfigException(
                        key.key() + " = '" + value + "' (from " + origin + ") is invalid: " + e.getMessage()
                                + "; expected " + key.form(),
                        e);
            }
            return this;
        }

        public Builder hubs(List<InetSocketAddress> list) {
            hubs = List.copyOf(list);
            return this;
        }

        public Builder modules(String... names) {
            return modules(List.of(names));
        }

        public Builder modules(List<String> names) {
            for (String n : names) {
                if (!MODULE_NAME.matcher(n).matches()) {
                    throw new TraverseConfigException(
                            "module name '" + n + "' must be lower-case letters, digits or '-'");
                }
            }
            if (names.isEmpty()) {
                throw new TraverseConfigException("the module list is empty");
            }
            modules = List.copyOf(names);
            modulesConfigured = true;
            return this;
        }

        public Builder token(String secret) {
            token = secret == null ? "" : secret;
            return this;
        }

        /** Keep the node's key (and so its id) in this file, created if absent. */
        public Builder keyFile(java.nio.file.Path file) {
            return set(ConfigKey.KEY_FILE, file == null ? "" : file.toString(), "code");
        }

        /** Listen on this IP address only (and advertise only it). */
        public Builder bind(String ipAddress) {
            return set(ConfigKey.BIND, ipAddress, "code");
        }

        public Builder portRange(String range) {
            return set(ConfigKey.PORT_RANGE, range, "code");
        }

        public Builder externals(List<InetSocketAddress> list) {
            externals = List.copyOf(list);
            return this;
        }

        public Builder firewall(FirewallRule... rules) {
            firewall = List.of(rules);
            return this;
        }

        public Builder firewall(List<FirewallRule> rules) {
            firewall = List.copyOf(rules);
            return this;
        }

        public Builder connectTimeout(Duration d) {
            connectTimeout = ConfigValues.positive(d);
            return this;
        }

        public Builder connectStagger(Duration d) {
            connectStagger = ConfigValues.nonNegative(d);
            return this;
        }

        public Builder handshakeTimeout(Duration d) {
            handshakeTimeout = ConfigValues.positive(d);
            return this;
        }

        public Builder maxPendingHandshakes(int n) {
            maxPendingHandshakes = ConfigValues.positive(Integer.toString(n));
            return this;
        }

        public Builder acceptBacklog(int n) {
            acceptBacklog = ConfigValues.positive(Integer.toString(n));
            return this;
        }

        public Builder cacheTtl(Duration d) {
            cacheTtl = ConfigValues.nonNegative(d);
            return this;
        }

        /** Look for hubs on the site network when none is configured (default true). */
        public Builder discovery(boolean on) {
            discovery = on;
            return this;
        }

        public Builder discoveryPort(int udpPort) {
            return set(ConfigKey.DISCOVERY_PORT, Integer.toString(udpPort), "code");
        }

        public Builder hubKeepalive(Duration d) {
            hubKeepalive = ConfigValues.positive(d);
            return this;
        }

        public Builder hubDataLink(boolean on) {
            hubDataLink = on;
            return this;
        }

        public Builder hubTimeout(Duration d) {
            hubTimeout = ConfigValues.positive(d);
            return this;
        }

        /** Reach hubs through this HTTP proxy ({@code traverse.http.proxy} form), or {@code none}. */
        public Builder httpProxy(String proxy) {
            return set(ConfigKey.HTTP_PROXY, proxy, "code");
        }

        /** Hosts reached without the proxy ({@code http.nonProxyHosts} form). */
        public Builder nonProxyHosts(String hosts) {
            return set(ConfigKey.HTTP_NON_PROXY_HOSTS, hosts, "code");
        }

        /**
         * The JDK proxy properties ({@code https.proxyHost}, {@code http.proxyHost}, their ports, users
         * and passwords, {@code http.nonProxyHosts}) to fall back on when traverse.http.proxy is not set.
         */
        public Builder jdkProxyProperties(Properties properties) {
            Properties copy = new Properties();
            for (String name : properties.stringPropertyNames()) {
                if (name.startsWith("http.") || name.startsWith("https.")) {
                    copy.setProperty(name, properties.getProperty(name));
                }
            }
            jdkProxyProperties = copy;
            return this;
        }

        private HttpProxy httpProxy() {
            String nonProxy = !nonProxyHostsText.isEmpty()
                    ? nonProxyHostsText
                    : jdkProxyProperties.getProperty("http.nonProxyHosts", HttpProxy.JDK_NON_PROXY_HOSTS);
            try {
                if (!httpProxyText.isEmpty()) {
                    return HttpProxy.parse(httpProxyText, nonProxy, httpProxyOrigin)
                            .orElse(null);
                }
                return HttpProxy.fromJdkProperties(jdkProxyProperties, nonProxy).orElse(null);
            } catch (IllegalArgumentException e) {
                ConfigKey key = httpProxyText.isEmpty() ? null : ConfigKey.HTTP_PROXY;
                throw new TraverseConfigException(
                        (key == null
                                ? "the JDK proxy properties are invalid: " + e.getMessage()
                                : key.key() + " (from " + httpProxyOrigin + ") is invalid: " + e.getMessage()
                                        + "; expected " + key.form()),
                        e);
            }
        }

        private io.traverse.settings.LongPollSettings longPoll() {
            try {
                return new io.traverse.settings.LongPollSettings(
                        httpTunnel,
                        longPollServerTimeout,
                        longPollClientTimeout,
                        longPollRegenerate,
                        longPollBatchSize,
                        longPollBatchTimespan);
            } catch (IllegalArgumentException e) {
                throw new TraverseConfigException("the traverse.longpoll settings are invalid: " + e.getMessage(), e);
            }
        }

        public TraverseConfig build() {
            return new TraverseConfig(this);
        }
    }
}
