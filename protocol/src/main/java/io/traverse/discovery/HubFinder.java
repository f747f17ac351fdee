package io.traverse.discovery;

import io.traverse.protocol.ProtocolException;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.InterfaceAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds the hubs on this node's site network: sends a {@link DiscoveryDatagram.Probe}
 * to the discovery multicast group on every multicast-capable interface, to the broadcast
 * addresses (fallback where multicast is filtered), to {@code 127.0.0.1} (a hub on this host) and
 * to any extra address given, then collects answers for a bounded time.
 *
 * <p>The search ends at the {@linkplain Builder#window window} or a short
 * {@linkplain Builder#settle settle time} after the first answer, whichever comes first; probes
 * are repeated twice within the window because UDP may drop them. Answers with another nonce,
 * another version or in bad form are ignored. {@link #find()} blocks its caller for at most the
 * window; {@link #findInBackground()} runs on its own short-lived daemon thread and never on the
 * caller's (an event loop must not block).
 */
public final class HubFinder {
    /** The site-local discovery group (design: 239.255.84.86). */
    public static final InetAddress DEFAULT_GROUP = ipv4(239, 255, 84, 86);

    public static final int DEFAULT_PORT = 17000;
    public static final Duration DEFAULT_WINDOW = Duration.ofSeconds(2);
    public static final Duration DEFAULT_SETTLE = Duration.ofMillis(200);
    /** Routers at a site's edge drop 239.255/16 (admin-scoped); within the site a few hops are fine. */
    static final int MULTICAST_TTL = 4;

    private static final Logger log = LoggerFactory.getLogger(HubFinder.class);
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final InetAddress LIMITED_BROADCAST = ipv4(255, 255, 255, 255);

    private final InetAddress group;
    private final int port;
    private final boolean multicast;
    private final List<NetworkInterface> multicastInterfaces;
    private final boolean broadcast;
    private final boolean localHost;
    private final List<InetSocketAddress> extraTargets;
    private final Duration window;
    private final Duration settle;

    private HubFinder(Builder b) {
        group = b.group;
        port = b.port;
        multicast = b.multicast;
        multicastInterfaces = List.copyOf(b.multicastInterfaces);
        broadcast = b.broadcast;
        localHost = b.localHost;
        extraTargets = List.copyOf(b.extraTargets);
        window = b.window;
        settle = b.settle;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Multicast, broadcast and this host on the default group and port. */
    public static HubFinder defaults() {
        return builder().build();
    }

    /**
     * Runs one search on a new daemon thread. Cancelling the future stops the search at once.
     * The future fails only if no probe could be sent at all.
     */
    public CompletableFuture<List<DiscoveredHub>> findInBackground() {
        CompletableFuture<List<DiscoveredHub>> result = new CompletableFuture<>();
        AtomicReference<DatagramSocket> socketRef = new AtomicReference<>();
        Thread t = new Thread(
                () -> {
                    try {
                        result.complete(search(socketRef, result));
                    } catch (IOException | RuntimeException e) {
                        result.completeExceptionally(e);
                    }
                },
                "traverse-discovery");
        t.setDaemon(true);
        result.whenComplete((hubs, failure) -> {
            DatagramSocket s = socketRef.get();
            if (s != null && result.isCancelled()) {
                s.close(); // unblocks receive
            }
        });
        t.start();
        return result;
    }

    /**
     * Searches on the caller's thread, for at most the window.
     *
     * @return the hubs in the order their first answer arrived (nearest first); empty if none answered
     * @throws IOException if no probe could be sent on any path
     */
    public List<DiscoveredHub> find() throws IOException {
        return search(new AtomicReference<>(), new CompletableFuture<>());
    }

    private List<DiscoveredHub> search(AtomicReference<DatagramSocket> socketRef, CompletableFuture<?> stopWhenDone)
            throws IOException {
        byte[] nonce = new byte[DiscoveryDatagram.NONCE_LENGTH];
        RANDOM.nextBytes(nonce);
        byte[] probe = DiscoveryDatagram.encode(new DiscoveryDatagram.Probe(nonce));
        Map<String, DiscoveredHub> found = new LinkedHashMap<>();
        DatagramChannel channel = DatagramChannel.open(StandardProtocolFamily.INET);
        try (DatagramSocket socket = channel.socket()) {
            socketRef.set(socket);
            if (stopWhenDone.isCancelled()) {
                return List.of();
            }
            channel.setOption(StandardSocketOptions.SO_BROADCAST, true);
            channel.setOption(StandardSocketOptions.IP_MULTICAST_TTL, MULTICAST_TTL);
            channel.setOption(StandardSocketOptions.IP_MULTICAST_LOOP, true); // a hub on this host hears us
            channel.bind(new InetSocketAddress(0));
            long start = System.nanoTime();
            long end = start + window.toNanos();
            long[] sendAt = {start, start + window.toNanos() / 8, start + window.toNanos() * 3 / 8};
            int sends = 0;
            byte[] buffer = new byte[DiscoveryDatagram.MAX_ANSWER_LENGTH + 1]; // +1: oversized datagrams show as such
            DatagramPacket packet = new DatagramPacket(buffer, buffer.length);
            while (true) {
                long now = System.nanoTime();
                if (sends < sendAt.length && now >= sendAt[sends]) {
                    int sent = sendProbes(channel, probe);
                    if (sent == 0 && sends == 0) {
                        throw new SocketException(
                                "hub discovery: no probe could be sent (no usable interface or target)");
                    }
                    sends++;
                    continue;
                }
                long wakeAt = sends < sendAt.length ? Math.min(end, sendAt[sends]) : end;
                if (!found.isEmpty()) {
                    wakeAt = Math.min(wakeAt, firstAnswerAt(found, start) + settle.toNanos());
                }
                long waitMillis = (wakeAt - now + 999_999) / 1_000_000;
                if (waitMillis <= 0) {
                    if (now >= end || (!found.isEmpty() && now >= firstAnswerAt(found, start) + settle.toNanos())) {
                        break;
                    }
                    continue;
                }
                socket.setSoTimeout((int) Math.min(Integer.MAX_VALUE, waitMillis));
                try {
                    packet.setLength(buffer.length);
                    socket.receive(packet);
                } catch (SocketTimeoutException e) {
                    continue;
                }
                accept(packet, nonce, start, found);
            }
        } catch (SocketException e) {
            if (stopWhenDone.isCancelled()) {
                return List.copyOf(found.values());
            }
            throw e;
        } finally {
            channel.close();
        }
        log.debug("Hub discovery on port {} found {}", port, found.keySet());
        return List.copyOf(found.values());
    }

    private static long firstAnswerAt(Map<String, DiscoveredHub> found, long start) {
        return start + found.values().iterator().next().answerTime().toNanos();
    }

    private void accept(DatagramPacket packet, byte[] nonce, long start, Map<String, DiscoveredHub> found) {
        InetSocketAddress from = (InetSocketAddress) packet.getSocketAddress();
        DiscoveryDatagram.Answer answer;
        try {
            answer = DiscoveryDatagram.decodeAnswer(packet.getData(), packet.getLength());
        } catch (ProtocolException e) {
            log.debug("Ignoring a discovery datagram from {}: {}", from, e.getMessage());
            return;
        }
        if (!answer.answers(nonce)) {
            log.debug("Ignoring a discovery answer from {} to another probe", from);
            return;
        }
        if (!found.containsKey(answer.hubName())) {
            DiscoveredHub hub = new DiscoveredHub(
                    answer.hubName(),
                    answer.linkAddressesSeenFrom(from.getAddress()),
                    from,
                    Duration.ofNanos(System.nanoTime() - start));
            found.put(answer.hubName(), hub);
            log.debug(
                    "Hub '{}' answered discovery from {} after {} ms: {}",
                    hub.name(),
                    from,
                    hub.answerTime().toMillis(),
                    hub.linkAddresses());
        }
    }

    /** Sends one round of probes; returns how many left this host. */
    private int sendProbes(DatagramChannel channel, byte[] probe) {
        int sent = 0;
        if (multicast) {
            InetSocketAddress target = new InetSocketAddress(group, port);
            for (NetworkInterface nif : multicastInterfaces.isEmpty() ? usableInterfaces(true) : multicastInterfaces) {
                try {
                    channel.setOption(StandardSocketOptions.IP_MULTICAST_IF, nif);
                    channel.send(ByteBuffer.wrap(probe), target);
                    sent++;
                } catch (IOException e) {
                    log.debug("Discovery probe to {} on {} failed: {}", target, nif.getName(), e.toString());
                }
            }
        }
        Set<InetSocketAddress> targets = new LinkedHashSet<>();
        if (broadcast) {
            targets.add(new InetSocketAddress(LIMITED_BROADCAST, port));
            for (NetworkInterface nif : usableInterfaces(false)) {
                for (InterfaceAddress ia : nif.getInterfaceAddresses()) {
                    if (ia.getBroadcast() != null) {
                        targets.add(new InetSocketAddress(ia.getBroadcast(), port));
                    }
                }
            }
        }
        if (localHost) {
            targets.add(new InetSocketAddress(ipv4(127, 0, 0, 1), port));
        }
        targets.addAll(extraTargets);
        for (InetSocketAddress target : targets) {
            try {
                channel.send(ByteBuffer.wrap(probe), target);
                sent++;
            } catch (IOException e) {
                log.debug("Discovery probe to {} failed: {}", target, e.toString());
            }
        }
        return sent;
    }

    /** Up, non-loopback interfaces with an IPv4 address (multicast-capable ones when asked). */
    private static List<NetworkInterface> usableInterfaces(boolean forMulticast) {
        List<NetworkInterface> out = new ArrayList<>();
        try {
            for (NetworkInterface nif : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                if (nif.isUp()
                        && !nif.isLoopback()
                        && (!forMulticast || nif.supportsMulticast())
                        && nif.inetAddresses().anyMatch(a -> a instanceof Inet4Address)) {
                    out.add(nif);
                }
            }
        } catch (SocketException e) {
            log.debug("Listing interfaces for discovery failed: {}", e.toString());
        }
        return out;
    }

    private static InetAddress ipv4(int a, int b, int c, int d) {
        try {
            return InetAddress.getByAddress(new byte[] {(byte) a, (byte) b, (byte) c, (byte) d});
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    @Override
    public String toString() {
        return "HubFinder[port " + port + (multicast ? ", multicast " + group.getHostAddress() : "")
                + (broadcast ? ", broadcast" : "")
                + (localHost ? ", this host" : "") + (extraTargets.isEmpty() ? "" : ", also " + extraTargets)
                + ", window "
                + window.toMillis() + " ms]";
    }

    /** What to probe and for how long. */
    public static final class Builder {
        private InetAddress group = DEFAULT_GROUP;
        private int port = DEFAULT_PORT;
        private boolean multicast = true;
        private List<NetworkInterface> multicastInterfaces = List.of();
        private boolean broadcast = true;
        private boolean localHost = true;
        private List<InetSocketAddress> extraTargets = List.of();
        private Duration window = DEFAULT_WINDOW;
        private Duration settle = DEFAULT_SETTLE;

        private Builder() {}

        /** The multicast group (an IPv4 multicast address). */
        public Builder group(InetAddress multicastGroup) {
            if (!(multicastGroup instanceof Inet4Address) || !multicastGroup.isMulticastAddress()) {
                throw new IllegalArgumentException(multicastGroup + " is not an IPv4 multicast group");
            }
            group = multicastGroup;
            return this;
        }

        /** The UDP port hubs listen on for probes (multicast, broadcast and this host). */
        public Builder port(int udpPort) {
            if (udpPort < 1 || udpPort > 65535) {
                throw new IllegalArgumentException("port " + udpPort + " is not within 1-65535");
            }
            port = udpPort;
            return this;
        }

        public Builder multicast(boolean on) {
            multicast = on;
            return this;
        }

        /** Send multicast probes on these interfaces only (default: every up, multicast-capable, non-loopback one). */
        public Builder multicastInterfaces(List<NetworkInterface> interfaces) {
            multicastInterfaces = List.copyOf(interfaces);
            return this;
        }

        /** Probe 255.255.255.255 and the broadcast address of every interface. */
        public Builder broadcast(boolean on) {
            broadcast = on;
            return this;
        }

        /** Probe 127.0.0.1 too (a hub on this host). */
        public Builder localHost(boolean on) {
            localHost = on;
            return this;
        }

        /** Also probe these addresses (a known hub, a broadcast address of your choosing). */
        public Builder alsoProbe(List<InetSocketAddress> targets) {
            for (InetSocketAddress t : targets) {
                if (t.isUnresolved() || !(t.getAddress() instanceof Inet4Address)) {
                    throw new IllegalArgumentException("discovery target " + t + " is not an IPv4 address");
                }
            }
            extraTargets = List.copyOf(targets);
            return this;
        }

        /** How long to search at most. */
        public Builder window(Duration d) {
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException("the discovery window must be positive");
            }
            window = d;
            return this;
        }

        /** How long to wait for more hubs once one has answered. */
        public Builder settle(Duration d) {
            if (d.isNegative()) {
                throw new IllegalArgumentException("the settle time must not be negative");
            }
            settle = d;
            return this;
        }

        public HubFinder build() {
            return new HubFinder(this);
        }
    }
}
