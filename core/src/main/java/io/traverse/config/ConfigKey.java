package io.traverse.config;

import java.util.Locale;
import java.util.Optional;

/**
 * Core's configuration keys, their defaults and the forms they accept. A key is a system property
 * {@code traverse.port.range}, an environment variable {@code TRAVERSE_PORT_RANGE}, or a line of
 * {@code traverse.properties}. The connection modules declare their own keys ({@link ModuleKey}),
 * read from the same sources.
 */
public enum ConfigKey {
    HUBS("traverse.hubs", "", "a comma-separated list of host:port, e.g. hub1.example.org:17000,198.18.0.1:17000"),
    MODULES(
            "traverse.modules",
            "direct,reverse,splice,routed,longpoll",
            "a comma-separated list of module names in the order to try them, e.g. direct,routed"),
    TOKEN("traverse.token", "", "the network secret shared by every node and hub (any text)"),
    KEY_FILE(
            "traverse.key",
            "",
            "a file that keeps the node's Ed25519 key, and with it its id, across restarts; created, readable by the"
                    + " owner only, if absent (empty: a new key and id at every start)"),
    BIND("traverse.bind", "", "an IP address to listen on (empty: every interface)"),
    PORT_RANGE("traverse.port.range", "0", "0 (any port) or a list of ports and ranges, e.g. 5000-5100,6000"),
    EXTERNAL(
            "traverse.external",
            "",
            "a comma-separated list of IP or IP:port forwarded to this node, e.g. 203.0.113.7:6000 (no port: the listening port)"),
    FIREWALL(
            "traverse.firewall",
            "",
            "a comma-separated list of allow|deny|drop:NETWORK, first match wins, e.g. allow:10.1.0.0/16,deny:all"),
    CONNECT_TIMEOUT(
            "traverse.connect.timeout",
            "30s",
            "a duration such as 500ms, 30s or 2m: the connect timeout when the application gives none"),
    CONNECT_STAGGER(
            "traverse.connect.stagger",
            "100ms",
            "a duration such as 100ms: the delay before the next parallel attempt starts"),
    HANDSHAKE_TIMEOUT(
            "traverse.handshake.timeout",
            "5s",
            "a duration such as 5s: how long a new connection may take to say who it wants"),
    HANDSHAKE_PENDING(
            "traverse.handshake.pending",
            "1024",
            "a whole number from 1: how many handshakes may be in progress at once"),
    ACCEPT_BACKLOG(
            "traverse.accept.backlog",
            "50",
            "a whole number from 1: the accept queue length of a server socket that gives none"),
    CACHE_TTL(
            "traverse.cache.ttl",
            "10m",
            "a duration such as 10m: how long the module that worked for a hub is remembered"),
    DISCOVERY(
            "traverse.discovery",
            "true",
            "true or false: look for hubs on the site network (UDP multicast, then broadcast) when traverse.hubs is empty"),
    DISCOVERY_PORT(
            "traverse.discovery.port",
            "17000",
            "a UDP port from 1 to 65535: where hubs answer discovery probes (multicast group 239.255.84.86)"),
    HUB_KEEPALIVE(
            "traverse.hub.keepalive",
            "2s",
            "a duration such as 2s: how often the node pings its hub; the link is dead after 3 intervals without a frame"),
    HUB_TIMEOUT(
            "traverse.hub.timeout",
            "10s",
            "a duration such as 10s: the limit for the link handshake with a hub, lookups, name binding and side-channel requests that give none"),
    HUB_DATA_LINK(
            "traverse.hub.datalink",
            "true",
            "true or false: relayed connections travel on a data link beside the hub link, with a reader thread of its own (false: on the hub link itself)"),
    HUB_DATA_LINK_TLS(
            "traverse.hub.datalink.tls",
            "false",
            "true or false: the data link runs TLS too, like the hub link (hides relayed frames' headers from the wire, at about a third of the relay's throughput; false: in clear, bound to the hub link, its relayed bytes sealed end to end by traverse.encrypt)"),
    ENCRYPT(
            "traverse.encrypt",
            "relayed",
            "relayed, all or none: relayed connections are encrypted end to end between the two nodes, so hubs relay only ciphertext"
                    + " (all: direct, reverse and spliced connections run TLS 1.3 between the two nodes' keys too, which this node"
                    + " asks for and imposes on every node that connects to it; none: this node offers no encryption, and accepts"
                    + " relayed connections in clear; with relayed or none, kernel sockets are in clear unless the other node has"
                    + " all)"),
    HTTP_PROXY(
            "traverse.http.proxy",
            "",
            "host:port, user:password@host:port, file:PATH (a file holding one of those) or none: the HTTP proxy to reach hubs through"
                    + " with CONNECT (empty: the JDK's https.proxyHost/http.proxyHost, else none)"),
    HTTP_NON_PROXY_HOSTS(
            "traverse.http.nonproxyhosts",
            "",
            "hosts reached without the proxy, '|'-separated, '*' a wildcard, e.g. localhost|127.*|*.example.org"
                    + " (empty: the JDK's http.nonProxyHosts, else localhost|127.*|[::1])"),
    HTTP_TUNNEL(
            "traverse.http.tunnel",
            "auto",
            "auto, connect or longpoll: how the hub link goes through the HTTP proxy (auto: CONNECT, and a long-poll session when"
                    + " the proxy refuses it; longpoll: always a long-poll session, also without a proxy)"),
    LONGPOLL_SERVER_TIMEOUT(
            "traverse.longpoll.server.timeout",
            "25s",
            "a duration from 0 to 2m: how long the hub holds a poll that has nothing to return (the hub may cap it)"),
    LONGPOLL_CLIENT_TIMEOUT(
            "traverse.longpoll.client.timeout",
            "35s",
            "a duration up to 3m, at least 1s more than the server timeout: how long the node waits for an HTTP answer before it repeats the request"),
    LONGPOLL_CLIENT_REGENERATE(
            "traverse.longpoll.client.regenerate",
            "0ms",
            "a duration from 0 to 500ms: how long the node waits after a poll's answer before it polls again"),
    LONGPOLL_BATCH_SIZE(
            "traverse.longpoll.batch.size",
            "1m",
            "a size from 1 byte to 1m such as 256k: the most bytes one poll answer or upstream request carries"),
    LONGPOLL_BATCH_TIMESPAN(
            "traverse.longpoll.batch.timespan",
            "0ms",
            "a duration from 0 to 10s: how long the hub lets relayed connections' data gather before it answers a poll (0: at once);"
                    + " the handshake, keepalive, answers and connects go at once and take the waiting data along");

    private final String key;
    private final String defaultValue;
    private final String form;

    ConfigKey(String key, String defaultValue, String form) {
        this.key = key;
        this.defaultValue = defaultValue;
        this.form = form;
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

    /** {@code traverse.port.range} → {@code TRAVERSE_PORT_RANGE}. */
    public String environmentName() {
        return environmentName(key);
    }

    /** The environment variable of any key, core's or a module's: {@code traverse.a.b} → {@code TRAVERSE_A_B}. */
    static String environmentName(String key) {
        return key.toUpperCase(Locale.ROOT).replace('.', '_');
    }

    public static Optional<ConfigKey> byKey(String key) {
        for (ConfigKey k : values()) {
            if (k.key.equals(key)) {
                return Optional.of(k);
            }
        }
        return Optional.empty();
    }

    public static Optional<ConfigKey> byEnvironmentName(String name) {
        for (ConfigKey k : values()) {
            if (k.environmentName().equals(name)) {
                return Optional.of(k);
            }
        }
        return Optional.empty();
    }
}
