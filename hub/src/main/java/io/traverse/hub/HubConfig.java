package io.traverse.hub;

import io.traverse.hub.identity.HubKeySource;
import io.traverse.settings.SshTunnelRule;
import io.traverse.wire.LinkAddress;
import io.traverse.wire.LinkLimits;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Everything a hub is configured with, read once and validated here. Build with
 * {@link #builder()}; every setting has a documented default (docs/operations.md).
 *
 * <p>About 600 lines because it is one field, one builder setter and one check per setting (some
 * thirty); the forms that need more than a line (SSH tunnel rules, link addresses) are parsed by
 * classes of their own.
 */
public final class HubConfig {
    /** Default hub link port. */
    public static final int DEFAULT_PORT = LinkAddress.DEFAULT_PORT;
    /** The key of {@link #handshakeTimeout()}. */
    public static final String HANDSHAKE_TIMEOUT_KEY = "traverse.hub.handshake.timeout";
    /** The key of {@link #httpRequestTimeout()}. */
    public static final String HTTP_REQUEST_TIMEOUT_KEY = "traverse.hub.http.request.timeout";
    /** The key of {@link #nameReservation()}. */
    public static final String NAME_RESERVATION_KEY = "traverse.hub.name.reservation";
    /** Default HTTP port (metrics and status); negative disables, 0 picks a free port. */
    public static final int DEFAULT_HTTP_PORT = 17080;
    /** The UDP port nodes send discovery probes to ({@code traverse.discovery.port} on nodes). */
    public static final int DEFAULT_DISCOVERY_PORT = 17000;

    private final String bindAddress;
    private final int port;
    private final String name;
    private final Path stateDirectory;
    private final Path keyFile;
    private final boolean ephemeralKey;
    private final List<String> peers;
    private final List<SshTunnelRule> sshTunnels;
    private final List<String> advertisedAddresses;
    private final String token;
    private final int httpPort;
    private final int discoveryPort;
    private final Duration keepaliveInterval;
    private final Duration handshakeTimeout;
    private final Duration gossipRefreshInterval;
    private final Duration hubExpiry;
    private final Duration redialMin;
    private final Duration redialMax;
    private final Duration sideRequestTimeout;
    private final int maxNodes;
    private final int maxNamesPerNode;
    private final int maxPendingRequestsPerNode;
    private final int maxHubLinks;
    private final int maxQueuedMessagesPerLink;
    private final int maxRelayedPerNode;
    private final int maxSetupsPerNode;
    private final int maxRelayed;
    private final int linkRate;
    private final int linkBurst;
    private final int lookupRatePerNode;
    private final int lookupBurstPerNode;
    private final int maxHandshakes;
    private final int maxHandshakesPerAddress;
    private final int maxHttpRequests;
    private final Duration httpRequestTimeout;
    private final Duration nameReservation;
    private final int ioThreads;
    private final io.traverse.hub.longpoll.LongPollLimits longPollLimits;

    private HubConfig(Builder b) {
        this.bindAddress = b.bindAddress;
        this.port = b.port;
        this.name = b.name;
        this.stateDirectory = b.stateDirectory.toAbsolutePath().normalize();
        this.keyFile = b.keyFile == null ? null : b.keyFile.toAbsolutePath().normalize();
        this.ephemeralKey = b.ephemeralKey;
        this.peers = List.copyOf(b.peers);
        this.sshTunnels = List.copyOf(b.sshTunnels);
        this.advertisedAddresses = b.advertisedAddresses == null ? null : List.copyOf(b.advertisedAddresses);
        this.token = b.token;
        this.httpPort = b.httpPort;
        this.discoveryPort = b.discoveryPort;
        this.keepaliveInterval = b.keepaliveInterval;
        this.handshakeTimeout = b.handshakeTimeout;
        this.gossipRefreshInterval = b.gossipRefreshInterval;
        this.hubExpiry = b.hubExpiry;
        this.redialMin = b.redialMin;
        this.redialMax = b.redialMax;
        this.sideRequestTimeout = b.sideRequestTimeout;
        this.maxNodes = b.maxNodes;
        this.maxNamesPerNode = b.maxNamesPerNode;
        this.maxPendingRequestsPerNode = b.maxPendingRequestsPerNode;
        this.maxHubLinks = b.maxHubLinks;
        this.maxQueuedMessagesPerLink = b.maxQueuedMessagesPerLink;
        this.maxRelayedPerNode = b.maxRelayedPerNode;
        this.maxSetupsPerNode = b.maxSetupsPerNode;
        this.maxRelayed = b.maxRelayed;
        this.linkRate = b.linkRate;
        this.linkBurst = b.linkBurst;
        this.lookupRatePerNode = b.lookupRatePerNode;
        this.lookupBurstPerNode = b.lookupBurstPerNode;
        this.maxHandshakes = b.maxHandshakes;
        this.maxHandshakesPerAddress = b.maxHandshakesPerAddress;
        this.maxHttpRequests = b.maxHttpRequests;
        this.httpRequestTimeout = b.httpRequestTimeout;
        this.nameReservation = b.nameReservation;
        this.ioThreads = b.ioThreads;
        this.longPollLimits = b.longPollLimits;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Address to listen on; default {@code 0.0.0.0} (every interface). */
    public String bindAddress() {
        return bindAddress;
    }

    /** Hub link port; default 17000, 0 picks a free one. */
    public int port() {
        return port;
    }

    /**
     * The hub's name as the operator chose it. Empty: the hub is shown as {@code <hostname>:<port>}.
     * Either way its id is its key's ({@link #keySource()}).
     */
    public Optional<String> name() {
        return Optional.ofNullable(name);
    }

    /**
     * Where the hub keeps its key ({@code hub-<name>.key}, or {@code hub-<port>.key} for a hub
     * without a name): by default {@code $XDG_STATE_HOME/traverse}, or {@code ~/.local/state/traverse}.
     */
    public Path stateDirectory() {
        return stateDirectory;
    }

    /** The file that holds the hub's key, when set explicitly (else one in {@link #stateDirectory()}). */
    public Optional<Path> keyFile() {
        return Optional.ofNullable(keyFile);
    }

    /**
     * Where the hub's key, and with it its id, comes from: the {@link #keyFile()}; else a new key at
     * every start when asked for ({@link Builder#ephemeralKey()}) or when the port is 0 (the hub's
     * address is new at every start too); else {@code hub-<name>.key} ({@code hub-<port>.key}
     * without a name) in the {@link #stateDirectory()}, generated at the first start.
     */
    public HubKeySource keySource() {
        if (keyFile != null) {
            return HubKeySource.file(keyFile);
        }
        if (ephemeralKey || port == 0) {
            return HubKeySource.ephemeral();
        }
        String stem = name == null ? Integer.toString(port) : name.replaceAll("[^A-Za-z0-9._-]", "_");
        return HubKeySource.file(stateDirectory.resolve("hub-" + stem + ".key"));
    }

    /**
     * The default state directory: {@code $XDG_STATE_HOME/traverse} when that is set to an
     * absolute path (the XDG base directory rule for data kept across restarts), else
     * {@code <home>/.local/state/traverse}, else (no usable home) {@code traverse-state} in the
     * working directory.
     */
    public static Path defaultStateDirectory(Map<String, String> environment, String userHome) {
        String xdg = environment.get("XDG_STATE_HOME");
        if (xdg != null && !xdg.isBlank() && Path.of(xdg).isAbsolute()) {
            return Path.of(xdg, "traverse");
        }
        if (userHome != null && !userHome.isBlank() && Path.of(userHome).isAbsolute()) {
            return Path.of(userHome, ".local", "state", "traverse");
        }
        return Path.of("traverse-state").toAbsolutePath();
    }

    /** Hubs to dial ({@code host:port}, port defaulting to 17000). */
    public List<String> peers() {
        return peers;
    }

    /**
     * Networks of peer hubs that are dialled through an sshd (paper §3.2.4; the same rule form as
     * the nodes' {@code traverse.ssh.tunnels}): a peer address in a rule's network is reached by a
     * local port forwarding through that rule's sshd, first match wins. Empty: every peer plainly.
     */
    public List<SshTunnelRule> sshTunnels() {
        return sshTunnels;
    }

    /**
     * Addresses other hubs may dial this one at. Empty: nobody dials this hub (it only dials
     * out). Absent: every advertisable interface address of the bind address, with the port.
     */
    public Optional<List<String>> advertisedAddresses() {
        return Optional.ofNullable(advertisedAddresses);
    }

    /** The network token; empty means no authentication (a warning is logged). */
    public String token() {
        return token;
    }

    /** HTTP port for metrics and status; default 17080, negative disables, 0 picks a free port. */
    public int httpPort() {
        return httpPort;
    }

    /**
     * The UDP port on which the hub answers discovery probes, on every interface; negative (the
     * default of this builder) answers none. {@code traverse hub} turns it on at
     * {@link #DEFAULT_DISCOVERY_PORT}.
     */
    public int discoveryPort() {
        return discoveryPort;
    }

    public Duration keepaliveInterval() {
        return keepaliveInterval;
    }

    /**
     * How long a connection on the link port may take from accept to the end of its link
     * handshake (preamble, HELLO, AUTH, admission), or to telling an HTTP request by its first
     * bytes ({@link #HANDSHAKE_TIMEOUT_KEY}).
     */
    public Duration handshakeTimeout() {
        return handshakeTimeout;
    }

    /**
     * How often the hub sends each hub link a summary of the descriptions it holds (anti-entropy;
     * a neighbour that holds something else asks for what differs). Descriptions themselves go
     * out on change only.
     */
    public Duration gossipRefreshInterval() {
        return gossipRefreshInterval;
    }

    /** How long the description of a hub unreachable over the hub links (both ends listing each) is kept. */
    public Duration hubExpiry() {
        return hubExpiry;
    }

    public Duration redialMin() {
        return redialMin;
    }

    public Duration redialMax() {
        return redialMax;
    }

    public Duration sideRequestTimeout() {
        return sideRequestTimeout;
    }

    public int maxNodes() {
        return maxNodes;
    }

    /** Names one node of this hub may hold ({@link AdmissionLimit#NAMES_PER_NODE}). */
    public int maxNamesPerNode() {
        return maxNamesPerNode;
    }

    /** Side-channel requests of one node of this hub that may wait for their answer ({@link AdmissionLimit#SIDE_REQUESTS_PER_NODE}). */
    public int maxPendingRequestsPerNode() {
        return maxPendingRequestsPerNode;
    }

    public int maxHubLinks() {
        return maxHubLinks;
    }

    public int maxQueuedMessagesPerLink() {
        return maxQueuedMessagesPerLink;
    }

    /** Relayed connections one node of this hub may hold, as opener and as acceptor ({@link AdmissionLimit#RELAYED_PER_NODE}). */
    public int maxRelayedPerNode() {
        return maxRelayedPerNode;
    }

    /** Relayed connections of one node of this hub that may wait for an answer ({@link AdmissionLimit#SETUPS_PER_NODE}). */
    public int maxSetupsPerNode() {
        return maxSetupsPerNode;
    }

    /** Relayed connections with an end at a node of this hub, all together ({@link AdmissionLimit#RELAYED}). */
    public int maxRelayed() {
        return maxRelayed;
    }

    /** New links accepted per second, over all link handshakes ({@link AdmissionLimit#LINK_RATE}). */
    public int linkRate() {
        return linkRate;
    }

    /** New links accepted at once before {@link #linkRate()} applies ({@link AdmissionLimit#LINK_BURST_KEY}). */
    public int linkBurst() {
        return linkBurst;
    }

    /** Lookups one node of this hub may ask per second ({@link AdmissionLimit#LOOKUPS_PER_NODE}). */
    public int lookupRatePerNode() {
        return lookupRatePerNode;
    }

    /** Lookups one node may ask at once before {@link #lookupRatePerNode()} applies ({@link AdmissionLimit#LOOKUP_BURST_KEY}). */
    public int lookupBurstPerNode() {
        return lookupBurstPerNode;
    }

    /** Connections on the link port in their handshake or before their first HTTP request ({@link AdmissionLimit#HANDSHAKES}). */
    public int maxHandshakes() {
        return maxHandshakes;
    }

    /** As {@link #maxHandshakes()}, from one IP address ({@link AdmissionLimit#HANDSHAKES_PER_ADDRESS}). */
    public int maxHandshakesPerAddress() {
        return maxHandshakesPerAddress;
    }

    /** Connections on the HTTP port whose request has not arrived whole ({@link AdmissionLimit#HTTP_REQUESTS}). */
    public int maxHttpRequests() {
        return maxHttpRequests;
    }

    /** How long an HTTP request's line and headers may take to arrive, on the HTTP port and the link port ({@link #HTTP_REQUEST_TIMEOUT_KEY}). */
    public Duration httpRequestTimeout() {
        return httpRequestTimeout;
    }

    /**
     * How long the names of a node whose link to this hub went stay reserved for that node (its
     * key): another node's claim is refused meanwhile; zero frees them at once ({@link #NAME_RESERVATION_KEY}).
     */
    public Duration nameReservation() {
        return nameReservation;
    }

    public int ioThreads() {
        return ioThreads;
    }

    /** Bounds on long-poll sessions (served on the link port). */
    public io.traverse.hub.longpoll.LongPollLimits longPollLimits() {
        return longPollLimits;
    }

    @Override
    public String toString() {
        return "HubConfig[bind " + bindAddress + ":" + port + ", name " + (name == null ? "(default)" : name) + ", key "
                + keySource()
                + ", peers " + peers + (sshTunnels.isEmpty() ? "" : ", ssh tunnels " + sshTunnels)
                + ", advertised " + (advertisedAddresses == null ? "(interfaces)" : advertisedAddresses) + ", token "
                + (token.isEmpty() ? "(none)" : "(set)") + ", http " + httpPort + ", keepalive "
                + keepaliveInterval.toMillis() + " ms]";
    }

    static final java.util.regex.Pattern HUB_NAME =
            java.util.regex.Pattern.compile("[A-Za-z0-9._:\\[\\]-]{1," + LinkLimits.MAX_HUB_NAME + "}");

    /** Builder with the defaults; {@link #build()} validates. */
    public static final class Builder {
        private String bindAddress = "0.0.0.0";
        private int port = DEFAULT_PORT;
        private String name;
        private Path stateDirectory = defaultStateDirectory(System.getenv(), System.getProperty("user.home"));
        private Path keyFile;
        private boolean ephemeralKey;
        private final List<String> peers = new ArrayList<>();
        private final List<SshTunnelRule> sshTunnels = new ArrayList<>();
        private List<String> advertisedAddresses;
        private String token = "";
        private int httpPort = DEFAULT_HTTP_PORT;
        private int discoveryPort = -1;
        private Duration keepaliveInterval = Duration.ofSeconds(2);
        private Duration handshakeTimeout = Duration.ofSeconds(10);
        private Duration gossipRefreshInterval = Duration.ofSeconds(10);
        private Duration hubExpiry = Duration.ofSeconds(30);
        private Duration redialMin = Duration.ofMillis(500);
        private Duration redialMax = Duration.ofSeconds(30);
        private Duration sideRequestTimeout = Duration.ofSeconds(30);
        private int maxNodes = 10_000;
        private int maxNamesPerNode = 64;
        private int maxPendingRequestsPerNode = 1_024;
        private int maxHubLinks = 256;
        private int maxQueuedMessagesPerLink = 1024;
        private int maxRelayedPerNode = 5_000;
        private int maxSetupsPerNode = 1_024;
        private int maxRelayed = 65_536;
        private int linkRate = 500;
        private int linkBurst = 1_000;
        private int lookupRatePerNode = 1_000;
        private int lookupBurstPerNode = 2_000;
        private int maxHandshakes = 1_024;
        private int maxHandshakesPerAddress = 256;
        private int maxHttpRequests = 256;
        private Duration httpRequestTimeout = Duration.ofSeconds(10);
        private Duration nameReservation = Duration.ofMinutes(10);
        private int ioThreads = Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors()));
        private io.traverse.hub.longpoll.LongPollLimits longPollLimits =
                io.traverse.hub.longpoll.LongPollLimits.defaults();

        private Builder() {}

        public Builder bindAddress(String address) {
            this.bindAddress = Objects.requireNonNull(address, "bind address");
            return this;
        }

        public Builder port(int port) {
            this.port = port;
            return this;
        }

        public Builder name(String name) {
            this.name = name;
            return this;
        }

        /** Where the hub keeps its key file; see {@link HubConfig#stateDirectory()}. */
        public Builder stateDirectory(Path directory) {
            this.stateDirectory = Objects.requireNonNull(directory, "state directory");
            return this;
        }

        /** The exact file that holds the hub's key (instead of one in the state directory). */
        public Builder keyFile(Path file) {
            this.keyFile = file;
            return this;
        }

        /** The hub gets a new key (and id) at every start and writes nothing: for tests and throwaway hubs. */
        public Builder ephemeralKey() {
            this.ephemeralKey = true;
            return this;
        }

        public Builder peer(String hostPort) {
            this.peers.add(Objects.requireNonNull(hostPort, "peer"));
            return this;
        }

        public Builder peers(List<String> hostPorts) {
            hostPorts.forEach(this::peer);
            return this;
        }

        /**
         * Peer hubs in a network are dialled through an sshd: one rule in {@link SshTunnelRule}'s text
         * form, e.g. {@code 10.1.0.0/24 user=hub key=/etc/traverse/id_rsa gateway=fe.site-b.org}.
         *
         * @throws IllegalArgumentException naming what is wrong with the rule
         */
        public Builder sshTunnel(String rule) {
            try {
                this.sshTunnels.add(SshTunnelRule.parse(Objects.requireNonNull(rule, "ssh tunnel")));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("ssh tunnel '" + rule + "': " + e.getMessage(), e);
            }
            return this;
        }

        /** Empty list: a hub that only dials out. Null: derive from the interfaces (default). */
        public Builder advertisedAddresses(List<String> addresses) {
            this.advertisedAddresses = addresses == null ? null : new ArrayList<>(addresses);
            return this;
        }

        public Builder token(String token) {
            this.token = Objects.requireNonNull(token, "token");
            return this;
        }

        /** Answer discovery probes on this UDP port (0: any free port, for tests; negative: off, the default). */
        public Builder discoveryPort(int udpPort) {
            this.discoveryPort = udpPort;
            return this;
        }

        public Builder httpPort(int httpPort) {
            this.httpPort = httpPort;
            return this;
        }

        public Builder keepaliveInterval(Duration interval) {
            this.keepaliveInterval = interval;
            return this;
        }

        public Builder handshakeTimeout(Duration timeout) {
            this.handshakeTimeout = timeout;
            return this;
        }

        public Builder gossipRefreshInterval(Duration interval) {
            this.gossipRefreshInterval = interval;
            return this;
        }

        public Builder hubExpiry(Duration expiry) {
            this.hubExpiry = expiry;
            return this;
        }

        public Builder redial(Duration min, Duration max) {
            this.redialMin = min;
            this.redialMax = max;
            return this;
        }

        public Builder sideRequestTimeout(Duration timeout) {
            this.sideRequestTimeout = timeout;
            return this;
        }

        public Builder maxNodes(int max) {
            this.maxNodes = max;
            return this;
        }

        public Builder maxNamesPerNode(int max) {
            this.maxNamesPerNode = max;
            return this;
        }

        public Builder maxPendingRequestsPerNode(int max) {
            this.maxPendingRequestsPerNode = max;
            return this;
        }

        public Builder maxHubLinks(int max) {
            this.maxHubLinks = max;
            return this;
        }

        public Builder maxQueuedMessagesPerLink(int max) {
            this.maxQueuedMessagesPerLink = max;
            return this;
        }

        public Builder maxRelayedPerNode(int max) {
            this.maxRelayedPerNode = max;
            return this;
        }

        public Builder maxSetupsPerNode(int max) {
            this.maxSetupsPerNode = max;
            return this;
        }

        public Builder maxRelayed(int max) {
            this.maxRelayed = max;
            return this;
        }

        /** New links accepted per second, over all link handshakes. */
        public Builder linkRate(int perSecond) {
            this.linkRate = perSecond;
            return this;
        }

        /** New links accepted at once before the rate applies (the token bucket's size). */
        public Builder linkBurst(int links) {
            this.linkBurst = links;
            return this;
        }

        /** Lookups one node may ask per second, after its burst. */
        public Builder lookupRatePerNode(int perSecond) {
            this.lookupRatePerNode = perSecond;
            return this;
        }

        /** Lookups one node may ask at once before the rate applies. */
        public Builder lookupBurstPerNode(int lookups) {
            this.lookupBurstPerNode = lookups;
            return this;
        }

        /** Connections on the link port in their handshake (or before their first HTTP request) at once. */
        public Builder maxHandshakes(int max) {
            this.maxHandshakes = max;
            return this;
        }

        /** As {@link #maxHandshakes(int)}, from one IP address. */
        public Builder maxHandshakesPerAddress(int max) {
            this.maxHandshakesPerAddress = max;
            return this;
        }

        /** Connections on the HTTP port whose request has not arrived whole, at once. */
        public Builder maxHttpRequests(int max) {
            this.maxHttpRequests = max;
            return this;
        }

        /** How long an HTTP request's line and headers may take to arrive. */
        /** See {@link HubConfig#nameReservation()}; zero frees a node's names as soon as its link goes. */
        public Builder nameReservation(Duration reservation) {
            this.nameReservation = reservation;
            return this;
        }

        public Builder httpRequestTimeout(Duration timeout) {
            this.httpRequestTimeout = timeout;
            return this;
        }

        public Builder longPollLimits(io.traverse.hub.longpoll.LongPollLimits limits) {
            this.longPollLimits = java.util.Objects.requireNonNull(limits);
            return this;
        }

        public Builder ioThreads(int threads) {
            this.ioThreads = threads;
            return this;
        }

        /** @throws IllegalArgumentException naming the first setting that is wrong and why */
        public HubConfig build() {
            if (bindAddress.isBlank()) {
                throw new IllegalArgumentException("bind address is empty");
            }
            range("port", port, 0, 65535);
            range("HTTP port", httpPort, Integer.MIN_VALUE, 65535);
            range("discovery port", discoveryPort, Integer.MIN_VALUE, 65535);
            if (name != null) {
                if (!HUB_NAME.matcher(name).matches()) {
                    throw new IllegalArgumentException("hub name '" + name + "' must be 1-" + LinkLimits.MAX_HUB_NAME
                            + " letters, digits or . _ : [ ] -");
                }
            }
            if (ephemeralKey && keyFile != null) {
                throw new IllegalArgumentException("a key file and an ephemeral key exclude each other: choose one");
            }
            if (keyFile != null && (keyFile.getFileName() == null || java.nio.file.Files.isDirectory(keyFile))) {
                throw new IllegalArgumentException("key file " + keyFile + " is a directory, not a file");
            }
            for (String peer : peers) {
                try {
                    LinkAddress.parse(peer, DEFAULT_PORT);
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("peer: " + e.getMessage());
                }
            }
            if (advertisedAddresses != null) {
                if (advertisedAddresses.size() > LinkLimits.MAX_LINK_ADDRESSES) {
                    throw new IllegalArgumentException(
                            "at most " + LinkLimits.MAX_LINK_ADDRESSES + " advertised addresses");
                }
                for (String address : advertisedAddresses) {
                    LinkAddress.parse(address);
                }
            }
            positive("keepalive interval", keepaliveInterval);
            if (keepaliveInterval.toMillis() < LinkLimits.MIN_KEEPALIVE_MILLIS
                    || keepaliveInterval.toMillis() > LinkLimits.MAX_KEEPALIVE_MILLIS) {
                throw new IllegalArgumentException("keepalive interval must be " + LinkLimits.MIN_KEEPALIVE_MILLIS
                        + " ms to " + LinkLimits.MAX_KEEPALIVE_MILLIS + " ms");
            }
            positive("handshake timeout", handshakeTimeout);
            positive("gossip refresh interval", gossipRefreshInterval);
            positive("hub expiry", hubExpiry);
            if (hubExpiry.compareTo(gossipRefreshInterval.multipliedBy(2)) < 0) {
                // Liveness is reachability now, not re-publication; but a hub cut off in this hub's view only
                // because a description was missed must be kept until anti-entropy (every refresh interval) repairs it.
                throw new IllegalArgumentException("hub expiry (" + hubExpiry.toMillis()
                        + " ms) must be at least twice the gossip refresh interval ("
                        + gossipRefreshInterval.toMillis()
                        + " ms), or a hub unreachable only for a missed description is forgotten"
                        + " before anti-entropy brings it");
            }
            positive("minimum redial delay", redialMin);
            if (redialMax.compareTo(redialMin) < 0) {
                throw new IllegalArgumentException("maximum redial delay is below the minimum");
            }
            positive("side request timeout", sideRequestTimeout);
            range("max nodes", maxNodes, 1, 1_000_000);
            range(AdmissionLimit.NAMES_PER_NODE.key(), maxNamesPerNode, 0, 65_535);
            range(AdmissionLimit.SIDE_REQUESTS_PER_NODE.key(), maxPendingRequestsPerNode, 1, 1_000_000);
            range("max hub links", maxHubLinks, 1, 65_535);
            range("max queued messages per link", maxQueuedMessagesPerLink, 2, 1_000_000);
            range(AdmissionLimit.RELAYED_PER_NODE.key(), maxRelayedPerNode, 1, 10_000_000);
            range(AdmissionLimit.SETUPS_PER_NODE.key(), maxSetupsPerNode, 1, 10_000_000);
            range(AdmissionLimit.RELAYED.key(), maxRelayed, 1, 10_000_000);
            range(AdmissionLimit.LINK_RATE.key(), linkRate, 1, 1_000_000);
            range(AdmissionLimit.LINK_BURST_KEY, linkBurst, 1, 1_000_000);
            range(AdmissionLimit.LOOKUPS_PER_NODE.key(), lookupRatePerNode, 1, 1_000_000);
            range(AdmissionLimit.LOOKUP_BURST_KEY, lookupBurstPerNode, 1, 1_000_000);
            range(AdmissionLimit.HANDSHAKES.key(), maxHandshakes, 1, 1_000_000);
            range(AdmissionLimit.HANDSHAKES_PER_ADDRESS.key(), maxHandshakesPerAddress, 1, 1_000_000);
            range(AdmissionLimit.HTTP_REQUESTS.key(), maxHttpRequests, 1, 1_000_000);
            positive(HTTP_REQUEST_TIMEOUT_KEY, httpRequestTimeout);
            if (nameReservation == null || nameReservation.isNegative()) {
                throw new IllegalArgumentException(NAME_RESERVATION_KEY + " must be zero or positive");
            }
            range("I/O threads", ioThreads, 1, 1024);
            return new HubConfig(this);
        }

        private static void range(String what, int value, int min, int max) {
            if (value < min || value > max) {
                throw new IllegalArgumentException(what + " " + value + " is not in " + min + "-" + max);
            }
        }

        private static void positive(String what, Duration d) {
            if (d == null || d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(what + " must be positive");
            }
        }
    }
}
