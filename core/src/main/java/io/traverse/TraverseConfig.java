package io.traverse;

import io.traverse.config.ConfigKey;
import io.traverse.config.ConfigSources;
import io.traverse.config.HttpProxy;
import io.traverse.config.PortRange;
import io.traverse.firewall.FirewallRule;
import io.traverse.identity.IpLiterals;
import io.traverse.identity.NodeId;
import io.traverse.settings.SshTunnelRule;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The settings of one Traverse node, read once and validated here; immutable.
 *
 * <p>{@link #load()} reads system properties, then {@code TRAVERSE_*} environment variables, then
 * {@code traverse.properties} (working directory, then class path), then defaults. The builder
 * sets the same values from code: {@code TraverseConfig.builder().bind("127.0.0.1").build()}.
 * Every key is listed in {@link ConfigKey} and in docs/operations.md, "Configuration keys".
 *
 * <p>Long because it is the one place every key is read, checked against the others and named in
 * its error; the forms of the values live in {@code io.traverse.config}.
 */
public final class TraverseConfig {
    private final List<InetSocketAddress> hubs;
    private final List<String> modules;
    private final boolean modulesConfigured;
    private final String token;
    private final NodeId nodeId;
    private final InetAddress bindAddress;
    private final PortRange portRange;
    private final List<InetSocketAddress> externals;
    private final List<FirewallRule> firewall;
    private final Duration connectTimeout;
    private final Duration connectStagger;
    private final String splicePrediction;
    private final int splicePorts;
    private final Duration handshakeTimeout;
    private final int maxPendingHandshakes;
    private final int acceptBacklog;
    private final Duration cacheTtl;
    private final boolean discovery;
    private final int discoveryPort;
    private final Duration hubKeepalive;
    private final Duration hubTimeout;
    private final boolean hubDataLink;
    private final int routedReceiveBudget;
    private final boolean portmap;
    private final List<String> portmapProtocols;
    private final Duration portmapLease;
    private final InetAddress portmapGateway;
    private final HttpProxy httpProxy;
    private final List<SshTunnelRule> sshTunnels;
    private final io.traverse.settings.LongPollSettings longPoll;

    private TraverseConfig(Builder b) {
        hubs = List.copyOf(b.hubs);
        modules = List.copyOf(b.modules);
        modulesConfigured = b.modulesConfigured;
        token = b.token;
        nodeId = b.nodeId;
        bindAddress = b.bindAddress;
        portRange = b.portRange;
        externals = List.copyOf(b.externals);
        firewall = List.copyOf(b.firewall);
        connectTimeout = b.connectTimeout;
        connectStagger = b.connectStagger;
        splicePrediction = b.splicePrediction;
        splicePorts = b.splicePorts;
        handshakeTimeout = b.handshakeTimeout;
        maxPendingHandshakes = b.maxPendingHandshakes;
        acceptBacklog = b.acceptBacklog;
        cacheTtl = b.cacheTtl;
        discovery = b.discovery;
        discoveryPort = b.discoveryPort;
        hubKeepalive = b.hubKeepalive;
        hubTimeout = b.hubTimeout;
        hubDataLink = b.hubDataLink;
        routedReceiveBudget = b.routedReceiveBudget;
        portmap = b.portmap;
        portmapProtocols = List.copyOf(b.portmapProtocols);
        portmapLease = b.portmapLease;
        portmapGateway = b.portmapGateway;
        httpProxy = b.httpProxy();
        sshTunnels = b.sshTunnels;
        longPoll = b.longPoll();
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
    public static Builder builderFrom(Map<ConfigKey, ConfigSources.Setting> settings) {
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

    public Optional<NodeId> nodeId() {
        return Optional.ofNullable(nodeId);
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

    /** How the splice module predicts ports: "preserve" or "sequential" ({@code traverse.splice.prediction}). */
    public String splicePrediction() {
        return splicePrediction;
    }

    /** How many consecutive ports from the predicted one the splice module tries ({@code traverse.splice.ports}). */
    public int splicePorts() {
        return splicePorts;
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

    /**
     * The most bytes the senders of all relayed connections may have on their way to this node beyond
     * what its application read ({@code traverse.routed.receive.budget}); each connection still gets 64 KiB.
     */
    public int routedReceiveBudget() {
        return routedReceiveBudget;
    }

    /** True if the node asks its NAT router to map its listening port ({@code traverse.portmap}). */
    public boolean portmap() {
        return portmap;
    }

    /** Port-mapping protocols ({@code upnp}, {@code pcp}, {@code natpmp}) in the order to try them. */
    public List<String> portmapProtocols() {
        return portmapProtocols;
    }

    /** The lease asked for each port mapping. */
    public Duration portmapLease() {
        return portmapLease;
    }

    /** The router PCP and NAT-PMP ask; empty: the default gateway. */
    public Optional<InetAddress> portmapGateway() {
        return Optional.ofNullable(portmapGateway);
    }

    /** The HTTP proxy hubs are reached through, if any. */
    public Optional<HttpProxy> httpProxy() {
        return Optional.ofNullable(httpProxy);
    }

    /** Target networks the direct module may also reach through an sshd (paper §3.2.4), first match wins. */
    public List<SshTunnelRule> sshTunnels() {
        return sshTunnels;
    }

    @Override
    public String toString() {
        return "TraverseConfig{hubs=" + hubs + ", modules=" + modules + ", token=" + (token.isEmpty() ? "none" : "****")
                + ", nodeId=" + nodeId + ", bind=" + (bindAddress == null ? "*" : bindAddress.getHostAddress())
                + ", portRange=" + portRange + ", externals=" + externals + ", firewall=" + firewall
                + ", connectTimeout=" + connectTimeout + ", connectStagger=" + connectStagger
                + ", handshakeTimeout=" + handshakeTimeout + ", maxPendingHandshakes=" + maxPendingHandshakes
                + ", acceptBacklog=" + acceptBacklog + ", cacheTtl=" + cacheTtl + ", discovery=" + discovery
                + ", discoveryPort=" + discoveryPort
                + ", hubKeepalive=" + hubKeepalive + ", hubTimeout=" + hubTimeout + ", hubDataLink=" + hubDataLink
                + ", routedReceiveBudget=" + routedReceiveBudget
                + ", portmap=" + portmap + ", portmapProtocols=" + portmapProtocols + ", portmapLease=" + portmapLease
                + ", portmapGateway=" + (portmapGateway == null ? "default" : portmapGateway.getHostAddress())
                + (httpProxy == null ? "" : ", httpProxy=" + httpProxy)
                + ", sshTunnels=" + sshTunnels + "}";
    }

    /** Builds a configuration; every setter validates. */
    public static final class Builder {
        private static final Pattern DURATION = Pattern.compile("(\\d{1,9})\\s*(ms|s|m|h)?");
        private static final Pattern MODULE_NAME = Pattern.compile("[a-z][a-z0-9-]{0,31}");

        private List<InetSocketAddress> hubs = List.of();
        private List<String> modules;
        private boolean modulesConfigured;
        private String token = "";
        private NodeId nodeId;
        private InetAddress bindAddress;
        private PortRange portRange = PortRange.ANY;
        private List<InetSocketAddress> externals = List.of();
        private List<FirewallRule> firewall = List.of();
        private Duration connectTimeout;
        private Duration connectStagger;
        private String splicePrediction;
        private int splicePorts;
        private Duration handshakeTimeout;
        private int maxPendingHandshakes;
        private int acceptBacklog;
        private Duration cacheTtl;
        private boolean discovery;
        private int discoveryPort;
        private Duration hubKeepalive;
        private Duration hubTimeout;
        private boolean hubDataLink;
        private int routedReceiveBudget;
        private boolean portmap;
        private List<String> portmapProtocols;
        private Duration portmapLease;
        private InetAddress portmapGateway;
        private String httpProxyText = "";
        private String httpProxyOrigin = "default";
        private String nonProxyHostsText = "";
        private Properties jdkProxyProperties = new Properties();
        private List<SshTunnelRule> sshTunnels = List.of();
        private String httpTunnel;
        private Duration longPollServerTimeout;
        private Duration longPollClientTimeout;
        private Duration longPollRegenerate;
        private int longPollBatchSize;
        private Duration longPollBatchTimespan;

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
                    case HUBS -> hubs = endpoints(v, false);
                    case MODULES -> modules(names(v));
                    case TOKEN -> token = v;
                    case NODE_ID -> nodeId = v.isEmpty() ? null : NodeId.of(v);
                    case BIND -> bindAddress = v.isEmpty() || v.equals("*") ? null : IpLiterals.parse(v);
                    case PORT_RANGE -> portRange = PortRange.parse(v);
                    case EXTERNAL -> externals = endpoints(v, true);
                    case FIREWALL -> firewall = firewallRules(v);
                    case CONNECT_TIMEOUT -> connectTimeout = positive(duration(v));
                    case CONNECT_STAGGER -> connectStagger = duration(v);
                    case HANDSHAKE_TIMEOUT -> handshakeTimeout = positive(duration(v));
                    case HANDSHAKE_PENDING -> maxPendingHandshakes = positive(v);
                    case ACCEPT_BACKLOG -> acceptBacklog = positive(v);
                    case CACHE_TTL -> cacheTtl = duration(v);
                    case DISCOVERY -> discovery = bool(v);
                    case DISCOVERY_PORT -> discoveryPort = port(v);
                    case HUB_KEEPALIVE -> hubKeepalive = positive(duration(v));
                    case HUB_TIMEOUT -> hubTimeout = positive(duration(v));
                    case HUB_DATA_LINK -> hubDataLink = bool(v);
                    case ROUTED_RECEIVE_BUDGET -> routedReceiveBudget = atLeast(size(v), 64 * 1024, "64k");
                    case PORTMAP -> portmap = bool(v);
                    case PORTMAP_PROTOCOLS -> portmapProtocols = portmapProtocols(v);
                    case PORTMAP_LEASE -> portmapLease = portmapLease(duration(v));
                    case PORTMAP_GATEWAY -> portmapGateway = v.isEmpty() ? null : IpLiterals.parse(v);
                    case HTTP_PROXY -> {
                        HttpProxy.parse(
                                v.isEmpty() ? "none" : v, HttpProxy.JDK_NON_PROXY_HOSTS, origin); // validates now
                        httpProxyText = v;
                        httpProxyOrigin = origin;
                    }
                    case HTTP_NON_PROXY_HOSTS -> nonProxyHostsText = v;
                    case SPLICE_PREDICTION -> splicePrediction = oneOf(v, "preserve", "sequential");
                    case SPLICE_PORTS -> splicePorts = between(v, 1, 16);
                    case SSH_TUNNELS -> sshTunnels = SshTunnelRule.parseList(v);
                    case HTTP_TUNNEL -> httpTunnel = oneOf(v, "auto", "connect", "longpoll");
                    case LONGPOLL_SERVER_TIMEOUT -> longPollServerTimeout = duration(v);
                    case LONGPOLL_CLIENT_TIMEOUT -> longPollClientTimeout = duration(v);
                    case LONGPOLL_CLIENT_REGENERATE -> longPollRegenerate = duration(v);
                    case LONGPOLL_BATCH_SIZE -> longPollBatchSize = size(v);
                    case LONGPOLL_BATCH_TIMESPAN -> longPollBatchTimespan = duration(v);
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

        /** Sets a key by name, e.g. {@code set("traverse.port.range", "5000-5100")}. */
        public Builder set(String key, String value) {
            ConfigKey k = ConfigKey.byKey(key)
                    .orElseThrow(() -> new TraverseConfigException("unknown configuration key " + key));
            return set(k, value, "code");
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

        public Builder nodeId(String id) {
            return set(ConfigKey.NODE_ID, id, "code");
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
            connectTimeout = positive(d);
            return this;
        }

        public Builder connectStagger(Duration d) {
            connectStagger = nonNegative(d);
            return this;
        }

        public Builder handshakeTimeout(Duration d) {
            handshakeTimeout = positive(d);
            return this;
        }

        public Builder maxPendingHandshakes(int n) {
            maxPendingHandshakes = positive(Integer.toString(n));
            return this;
        }

        public Builder acceptBacklog(int n) {
            acceptBacklog = positive(Integer.toString(n));
            return this;
        }

        public Builder cacheTtl(Duration d) {
            cacheTtl = nonNegative(d);
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
            hubKeepalive = positive(d);
            return this;
        }

        public Builder hubDataLink(boolean on) {
            hubDataLink = on;
            return this;
        }

        /** {@code traverse.routed.receive.budget} in bytes (at least 64 KiB). */
        public Builder routedReceiveBudget(int bytes) {
            return set(ConfigKey.ROUTED_RECEIVE_BUDGET, Integer.toString(bytes), "code");
        }

        public Builder hubTimeout(Duration d) {
            hubTimeout = positive(d);
            return this;
        }

        public Builder portmap(boolean on) {
            portmap = on;
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

        private static int atLeast(int n, int min, String shown) {
            if (n < min) {
                throw new IllegalArgumentException(n + " bytes is less than " + shown);
            }
            return n;
        }

        /** A size in bytes: a whole number, optionally with k or m (1024-based). */
        private static int size(String v) {
            String lower = v.toLowerCase(Locale.ROOT);
            int unit = lower.endsWith("k") ? 1024 : lower.endsWith("m") ? 1024 * 1024 : 1;
            String digits = unit == 1 ? lower : lower.substring(0, lower.length() - 1);
            try {
                long n = Long.parseLong(digits) * unit;
                if (n < 1 || n > Integer.MAX_VALUE) {
                    throw new IllegalArgumentException(v + " is not a size from 1 byte");
                }
                return (int) n;
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + v + "' is not a size such as 65536, 256k or 1m");
            }
        }

        private static String oneOf(String v, String... allowed) {
            String lower = v.toLowerCase(Locale.ROOT);
            for (String a : allowed) {
                if (a.equals(lower)) {
                    return a;
                }
            }
            throw new IllegalArgumentException("'" + v + "' is none of " + String.join(", ", allowed));
        }

        private static int between(String v, int min, int max) {
            int n;
            try {
                n = Integer.parseInt(v);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + v + "' is not a whole number");
            }
            if (n < min || n > max) {
                throw new IllegalArgumentException(n + " is not within " + min + "-" + max);
            }
            return n;
        }

        /** Rules in the text form of {@code traverse.ssh.tunnels} ({@link SshTunnelRule}). */
        public Builder sshTunnels(String rules) {
            return set(ConfigKey.SSH_TUNNELS, rules, "code");
        }

        public TraverseConfig build() {
            return new TraverseConfig(this);
        }

        private static final List<String> PORTMAP_PROTOCOL_NAMES = List.of("upnp", "pcp", "natpmp");

        private static List<String> portmapProtocols(String v) {
            List<String> out = names(v);
            for (String name : out) {
                if (!PORTMAP_PROTOCOL_NAMES.contains(name)) {
                    throw new IllegalArgumentException("'" + name + "' is not a port-mapping protocol");
                }
            }
            if (out.isEmpty()) {
                throw new IllegalArgumentException("the protocol list is empty");
            }
            return out;
        }

        private static Duration portmapLease(Duration d) {
            if (d.compareTo(Duration.ofMinutes(1)) < 0 || d.compareTo(Duration.ofHours(24)) > 0) {
                throw new IllegalArgumentException("the lease must be from 1m to 24h");
            }
            return d;
        }

        private static List<String> names(String v) {
            List<String> out = new ArrayList<>();
            for (String part : v.split(",")) {
                String name = part.trim().toLowerCase(Locale.ROOT);
                if (!name.isEmpty()) {
                    if (out.contains(name)) {
                        throw new IllegalArgumentException("module '" + name + "' is listed twice");
                    }
                    out.add(name);
                }
            }
            return out;
        }

        /** {@code host:port} items; with {@code portOptional}, IP literals only and a missing port reads as 0. */
        private static List<InetSocketAddress> endpoints(String v, boolean externalsForm) {
            List<InetSocketAddress> out = new ArrayList<>();
            if (v.isEmpty()) {
                return out;
            }
            for (String part : v.split(",")) {
                String item = part.trim();
                if (item.isEmpty()) {
                    continue;
                }
                String host;
                String portText;
                if (item.startsWith("[")) {
                    int close = item.indexOf(']');
                    if (close < 0) {
                        throw new IllegalArgumentException("'" + item + "' has '[' without ']'");
                    }
                    host = item.substring(1, close);
                    String rest = item.substring(close + 1);
                    portText = rest.isEmpty() ? null : rest.startsWith(":") ? rest.substring(1) : "?" + rest;
                } else if (item.indexOf(':') != item.lastIndexOf(':')) {
                    host = item; // bare IPv6
                    portText = null;
                } else {
                    int colon = item.lastIndexOf(':');
                    host = colon < 0 ? item : item.substring(0, colon);
                    portText = colon < 0 ? null : item.substring(colon + 1);
                }
                int port;
                if (portText == null) {
                    if (!externalsForm) {
                        throw new IllegalArgumentException("'" + item + "' has no ':PORT'");
                    }
                    port = 0;
                } else {
                    try {
                        port = Integer.parseInt(portText);
                    } catch (NumberFormatException e) {
                        throw new IllegalArgumentException("port '" + portText + "' of '" + item + "' is not a number");
                    }
                    if (port < 1 || port > 65535) {
                        throw new IllegalArgumentException("port " + port + " of '" + item + "' is not within 1-65535");
                    }
                }
                if (IpLiterals.isLiteral(host)) {
                    out.add(new InetSocketAddress(IpLiterals.parse(host), port));
                } else if (externalsForm) {
                    throw new IllegalArgumentException("'" + host + "' is not an IP address");
                } else {
                    if (!host.matches("[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?")) {
                        throw new IllegalArgumentException("'" + host + "' is not a host name or IP address");
                    }
                    out.add(InetSocketAddress.createUnresolved(host, port));
                }
            }
            return out;
        }

        private static List<FirewallRule> firewallRules(String v) {
            List<FirewallRule> out = new ArrayList<>();
            for (String part : v.split(",")) {
                if (!part.isBlank()) {
                    out.add(FirewallRule.parse(part));
                }
            }
            return out;
        }

        /** {@code 250ms}, {@code 5s}, {@code 2m}, {@code 1h}; a bare number is milliseconds. */
        static Duration duration(String v) {
            Matcher m = DURATION.matcher(v.toLowerCase(Locale.ROOT));
            if (!m.matches()) {
                throw new IllegalArgumentException("'" + v + "' is not a duration");
            }
            long n = Long.parseLong(m.group(1));
            String unit = m.group(2) == null ? "ms" : m.group(2);
            return countable(
                    switch (unit) {
                        case "ms" -> Duration.ofMillis(n);
                        case "s" -> Duration.ofSeconds(n);
                        case "m" -> Duration.ofMinutes(n);
                        default -> Duration.ofHours(n);
                    });
        }

        private static Duration positive(Duration d) {
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException("duration must be greater than zero");
            }
            return countable(d);
        }

        private static Duration nonNegative(Duration d) {
            if (d.isNegative()) {
                throw new IllegalArgumentException("duration must not be negative");
            }
            return countable(d);
        }

        /** The node counts every duration in nanoseconds (deadlines, cache ttl): longer ones would overflow there. */
        private static Duration countable(Duration d) {
            if (d.compareTo(LONGEST_COUNTABLE) > 0) {
                throw new IllegalArgumentException("duration " + d + " is too long (at most 2562047h)");
            }
            return d;
        }

        private static final Duration LONGEST_COUNTABLE = Duration.ofNanos(Long.MAX_VALUE);

        private static int port(String v) {
            int n = positive(v);
            if (n > 65535) {
                throw new IllegalArgumentException(n + " is not a port (1-65535)");
            }
            return n;
        }

        private static boolean bool(String v) {
            return switch (v.toLowerCase(Locale.ROOT)) {
                case "true", "yes", "on" -> true;
                case "false", "no", "off" -> false;
                default -> throw new IllegalArgumentException("'" + v + "' is neither true nor false");
            };
        }

        private static int positive(String v) {
            int n;
            try {
                n = Integer.parseInt(v);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + v + "' is not a whole number");
            }
            if (n < 1) {
                throw new IllegalArgumentException(n + " is less than 1");
            }
            return n;
        }
    }
}
