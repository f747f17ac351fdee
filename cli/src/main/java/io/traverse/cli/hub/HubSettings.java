package io.traverse.cli.hub;

import io.traverse.cli.TokenFile;
import io.traverse.hub.AdmissionLimit;
import io.traverse.hub.HubConfig;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The hub's settings from a properties file ({@code --config}), merged under the command-line
 * options: the file fills in what the options leave out. Unknown keys are an error, so a typo
 * never silently leaves a default in place.
 */
final class HubSettings {
    static final String BIND = "traverse.hub.bind";
    static final String PORT = "traverse.hub.port";
    static final String NAME = "traverse.hub.name";
    static final String STATE_DIR = "traverse.hub.state.dir";
    static final String KEY_FILE = "traverse.hub.key.file";
    static final String PEERS = "traverse.hub.peers";
    static final String ADVERTISE = "traverse.hub.advertise";
    static final String HTTP_PORT = "traverse.hub.http.port";
    static final String DISCOVERY_PORT = "traverse.hub.discovery.port";
    static final String TOKEN = "traverse.token";
    static final String TOKEN_FILE = "traverse.token.file";
    static final String KEEPALIVE = "traverse.hub.keepalive";
    static final String GOSSIP_REFRESH = "traverse.hub.gossip.refresh";
    static final String EXPIRY = "traverse.hub.expiry";
    static final String NAME_RESERVATION = HubConfig.NAME_RESERVATION_KEY;
    static final String MAX_NODES = AdmissionLimit.NODES.key();
    static final String MAX_NAMES = AdmissionLimit.NAMES_PER_NODE.key();
    static final String MAX_PENDING = AdmissionLimit.SIDE_REQUESTS_PER_NODE.key();
    static final String LOOKUP_RATE = AdmissionLimit.LOOKUPS_PER_NODE.key();
    static final String LOOKUP_BURST = AdmissionLimit.LOOKUP_BURST_KEY;
    static final String MAX_HANDSHAKES = AdmissionLimit.HANDSHAKES.key();
    static final String MAX_HANDSHAKES_PER_ADDRESS = AdmissionLimit.HANDSHAKES_PER_ADDRESS.key();
    static final String MAX_HTTP_REQUESTS = AdmissionLimit.HTTP_REQUESTS.key();
    static final String HTTP_REQUEST_TIMEOUT = HubConfig.HTTP_REQUEST_TIMEOUT_KEY;
    static final String HANDSHAKE_TIMEOUT = HubConfig.HANDSHAKE_TIMEOUT_KEY;
    static final String MAX_RELAYED_PER_NODE = AdmissionLimit.RELAYED_PER_NODE.key();
    static final String MAX_SETUPS_PER_NODE = AdmissionLimit.SETUPS_PER_NODE.key();
    static final String MAX_RELAYED = AdmissionLimit.RELAYED.key();
    static final String LINK_RATE = AdmissionLimit.LINK_RATE.key();
    static final String LINK_BURST = AdmissionLimit.LINK_BURST_KEY;
    static final String IO_THREADS = "traverse.hub.io.threads";
    /** Rules separated by ';', as {@code --ssh-tunnel} takes them one by one. */
    static final String SSH_TUNNELS = "traverse.hub.ssh.tunnels";

    static final Set<String> KEYS = Set.of(
            BIND,
            PORT,
            NAME,
            STATE_DIR,
            KEY_FILE,
            PEERS,
            ADVERTISE,
            HTTP_PORT,
            DISCOVERY_PORT,
            TOKEN,
            TOKEN_FILE,
            KEEPALIVE,
            GOSSIP_REFRESH,
            EXPIRY,
            NAME_RESERVATION,
            MAX_NODES,
            MAX_NAMES,
            MAX_PENDING,
            MAX_RELAYED_PER_NODE,
            MAX_SETUPS_PER_NODE,
            MAX_RELAYED,
            LINK_RATE,
            LINK_BURST,
            LOOKUP_RATE,
            LOOKUP_BURST,
            MAX_HANDSHAKES,
            MAX_HANDSHAKES_PER_ADDRESS,
            MAX_HTTP_REQUESTS,
            HTTP_REQUEST_TIMEOUT,
            HANDSHAKE_TIMEOUT,
            IO_THREADS,
            SSH_TUNNELS);
    /** The value of {@code traverse.hub.advertise} (or {@code --advertise}) for a hub that only dials out. */
    static final String ADVERTISE_NONE = "none";

    private static final Pattern DURATION = Pattern.compile("(\\d{1,9})(ms|s|m|h)?");

    private final Properties file;

    private HubSettings(Properties file) {
        this.file = file;
    }

    static HubSettings none() {
        return new HubSettings(new Properties());
    }

    /** @throws IllegalArgumentException for a key that is not a hub setting */
    static HubSettings read(Path path) throws IOException {
        Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(path, StandardCharsets.UTF_8)) {
            properties.load(reader);
        }
        Set<String> unknown = new TreeSet<>(properties.stringPropertyNames());
        unknown.removeAll(KEYS);
        if (!unknown.isEmpty()) {
            throw new IllegalArgumentException(
                    path + ": unknown keys " + unknown + " (known: " + new TreeSet<>(KEYS) + ")");
        }
        return new HubSettings(properties);
    }

    String get(String key) {
        String value = file.getProperty(key);
        return value == null || value.isBlank() ? null : value.trim();
    }

    /**
     * The token: {@code --token}, else {@code --token-file}, else the file's keys, else
     * {@code TRAVERSE_TOKEN}; empty if none. A token file holds the token on its first line.
     */
    String token(String option, Path optionFile, Map<String, String> environment) throws IOException {
        if (option != null) {
            return option;
        }
        if (optionFile != null) {
            return TokenFile.read(optionFile);
        }
        if (file.getProperty(TOKEN) != null) {
            return file.getProperty(TOKEN).trim();
        }
        if (get(TOKEN_FILE) != null) {
            return TokenFile.read(Path.of(get(TOKEN_FILE)));
        }
        String env = environment.get("TRAVERSE_TOKEN");
        return env == null ? "" : env.trim();
    }

    /** Applies the file's settings that have no option given, then validates. */
    void applyTo(HubConfig.Builder builder) {
        if (get(BIND) != null) {
            builder.bindAddress(get(BIND));
        }
        if (get(PORT) != null) {
            builder.port(integer(PORT));
        }
        if (get(NAME) != null) {
            builder.name(get(NAME));
        }
        if (get(STATE_DIR) != null) {
            builder.stateDirectory(Path.of(get(STATE_DIR)));
        }
        if (get(KEY_FILE) != null) {
            builder.keyFile(Path.of(get(KEY_FILE)));
        }
        builder.peers(list(get(PEERS)));
        if (get(SSH_TUNNELS) != null) {
            for (String rule : get(SSH_TUNNELS).split(";")) {
                if (!rule.isBlank()) {
                    builder.sshTunnel(rule.trim());
                }
            }
        }
        if (get(ADVERTISE) != null) {
            builder.advertisedAddresses(advertised(list(get(ADVERTISE))));
        }
        if (get(HTTP_PORT) != null) {
            builder.httpPort(integer(HTTP_PORT));
        }
        if (get(DISCOVERY_PORT) != null) {
            builder.discoveryPort(integer(DISCOVERY_PORT));
        }
        if (get(KEEPALIVE) != null) {
            builder.keepaliveInterval(duration(KEEPALIVE));
        }
        if (get(GOSSIP_REFRESH) != null) {
            builder.gossipRefreshInterval(duration(GOSSIP_REFRESH));
        }
        if (get(EXPIRY) != null) {
            builder.hubExpiry(duration(EXPIRY));
        }
        if (get(NAME_RESERVATION) != null) {
            builder.nameReservation(duration(NAME_RESERVATION));
        }
        if (get(MAX_NODES) != null) {
            builder.maxNodes(integer(MAX_NODES));
        }
        if (get(MAX_NAMES) != null) {
            builder.maxNamesPerNode(integer(MAX_NAMES));
        }
        if (get(MAX_PENDING) != null) {
            builder.maxPendingRequestsPerNode(integer(MAX_PENDING));
        }
        if (get(MAX_RELAYED_PER_NODE) != null) {
            builder.maxRelayedPerNode(integer(MAX_RELAYED_PER_NODE));
        }
        if (get(MAX_SETUPS_PER_NODE) != null) {
            builder.maxSetupsPerNode(integer(MAX_SETUPS_PER_NODE));
        }
        if (get(MAX_RELAYED) != null) {
            builder.maxRelayed(integer(MAX_RELAYED));
        }
        if (get(LINK_RATE) != null) {
            builder.linkRate(integer(LINK_RATE));
        }
        if (get(LINK_BURST) != null) {
            builder.linkBurst(integer(LINK_BURST));
        }
        if (get(LOOKUP_RATE) != null) {
            builder.lookupRatePerNode(integer(LOOKUP_RATE));
        }
        if (get(LOOKUP_BURST) != null) {
            builder.lookupBurstPerNode(integer(LOOKUP_BURST));
        }
        if (get(MAX_HANDSHAKES) != null) {
            builder.maxHandshakes(integer(MAX_HANDSHAKES));
        }
        if (get(MAX_HANDSHAKES_PER_ADDRESS) != null) {
            builder.maxHandshakesPerAddress(integer(MAX_HANDSHAKES_PER_ADDRESS));
        }
        if (get(MAX_HTTP_REQUESTS) != null) {
            builder.maxHttpRequests(integer(MAX_HTTP_REQUESTS));
        }
        if (get(HANDSHAKE_TIMEOUT) != null) {
            builder.handshakeTimeout(duration(HANDSHAKE_TIMEOUT));
        }
        if (get(HTTP_REQUEST_TIMEOUT) != null) {
            builder.httpRequestTimeout(duration(HTTP_REQUEST_TIMEOUT));
        }
        if (get(IO_THREADS) != null) {
            builder.ioThreads(integer(IO_THREADS));
        }
    }

    /** {@code none} alone means no addresses: the hub only dials out. */
    static List<String> advertised(List<String> values) {
        if (values.size() == 1 && values.get(0).equalsIgnoreCase(ADVERTISE_NONE)) {
            return List.of();
        }
        return values;
    }

    static List<String> list(String value) {
        List<String> out = new ArrayList<>();
        if (value != null) {
            Arrays.stream(value.split(","))
                    .map(String::trim)
                    .filter(s -> !s.isEmpty())
                    .forEach(out::add);
        }
        return out;
    }

    private int integer(String key) {
        try {
            return Integer.parseInt(get(key));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + " = '" + get(key) + "' is not a whole number");
        }
    }

    private Duration duration(String key) {
        Matcher m = DURATION.matcher(get(key).toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new IllegalArgumentException(key + " = '" + get(key) + "' is not a duration such as 500ms, 2s or 1m");
        }
        long n = Long.parseLong(m.group(1));
        String unit = m.group(2) == null ? "ms" : m.group(2);
        return switch (unit) {
            case "ms" -> Duration.ofMillis(n);
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            default -> Duration.ofHours(n);
        };
    }
}
