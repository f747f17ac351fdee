package io.traverse.hub.discovery;

import io.traverse.discovery.DiscoveryDatagram;
import io.traverse.discovery.HubFinder;
import io.traverse.protocol.ProtocolException;
import java.io.Closeable;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The hub's side of discovery: listens on UDP (default port 17000, every interface, joined to
 * the discovery multicast group on every multicast-capable interface, so broadcasts and unicast
 * probes arrive too) and answers each valid {@link DiscoveryDatagram.Probe} with the hub's name
 * and link addresses, unicast to the prober.
 *
 * <p>Datagrams that are not a valid probe are counted and dropped without an answer. Answers
 * are rate-limited overall and per source ({@link AnswerRateLimit}), and never larger than
 * {@link DiscoveryDatagram#MAX_ANSWER_LENGTH}, so the responder is a poor amplifier. It runs on
 * one daemon thread of its own, blocked in {@code receive}; {@link #close()} stops it.
 *
 * <p>The socket is opened with {@code SO_REUSEADDR}: several hubs on one host all receive
 * multicast and broadcast probes; a unicast probe reaches one of them.
 */
public final class DiscoveryResponder implements Closeable {
    private static final Logger log = LoggerFactory.getLogger(DiscoveryResponder.class);

    private final InetAddress bindAddress;
    private final int port;
    private final InetAddress group;
    private final List<NetworkInterface> interfaces;
    private final String hubName;
    private final Supplier<List<InetSocketAddress>> linkAddresses;
    private final AnswerRateLimit rateLimit;
    private final AtomicLong answered = new AtomicLong();
    private final AtomicLong ignored = new AtomicLong();
    private final AtomicLong rateLimited = new AtomicLong();
    private final Object lock = new Object();
    private DatagramChannel channel;
    private Thread thread;
    private volatile boolean closed;

    private DiscoveryResponder(Builder b) {
        bindAddress = b.bindAddress;
        port = b.port;
        group = b.group;
        interfaces = List.copyOf(b.interfaces);
        hubName = Objects.requireNonNull(b.hubName, "hub name");
        linkAddresses = Objects.requireNonNull(b.linkAddresses, "link addresses");
        rateLimit = new AnswerRateLimit(
                b.answersPerSecond,
                b.answerBurst,
                b.answersPerSourcePerSecond,
                b.answerBurstPerSource,
                System::nanoTime);
    }

    /**
     * @param hubName the hub's name (at most {@value DiscoveryDatagram#MAX_NAME_BYTES} UTF-8 bytes)
     * @param linkAddresses the hub's current link addresses, asked for each answer; a wildcard IP
     *        means "the address the node reached us at"
     */
    public static Builder builder(String hubName, Supplier<List<InetSocketAddress>> linkAddresses) {
        return new Builder(hubName, linkAddresses);
    }

    /** Binds the UDP port, joins the group where possible and starts answering. */
    public void start() throws IOException {
        synchronized (lock) {
            if (closed) {
                throw new SocketException("discovery responder is closed");
            }
            if (channel != null) {
                throw new IllegalStateException("discovery responder already started");
            }
            DatagramChannel ch = DatagramChannel.open(StandardProtocolFamily.INET);
            try {
                ch.setOption(StandardSocketOptions.SO_REUSEADDR, true);
                ch.bind(new InetSocketAddress(bindAddress, port));
                int joined = joinGroup(ch);
                if (joined == 0) {
                    log.warn(
                            "Hub discovery: could not join multicast group {} on any interface; answering broadcast and "
                                    + "unicast probes only",
                            group.getHostAddress());
                }
            } catch (IOException | RuntimeException e) {
                ch.close();
                throw e;
            }
            channel = ch;
            thread = new Thread(this::serve, "traverse-hub-discovery");
            thread.setDaemon(true);
            thread.start();
            log.info(
                    "Hub discovery answering on UDP {} (group {}) as '{}'",
                    ch.getLocalAddress(),
                    group.getHostAddress(),
                    hubName);
        }
    }

    private int joinGroup(DatagramChannel ch) {
        int joined = 0;
        for (NetworkInterface nif : interfaces.isEmpty() ? multicastInterfaces() : interfaces) {
            try {
                ch.join(group, nif);
                joined++;
            } catch (IOException | UnsupportedOperationException e) {
                log.debug(
                        "Hub discovery: joining {} on {} failed: {}",
                        group.getHostAddress(),
                        nif.getName(),
                        e.toString());
            }
        }
        return joined;
    }

    /** The bound UDP address (its port is the real one when port 0 was asked for), or null before start. */
    public InetSocketAddress localAddress() {
        synchronized (lock) {
            try {
                return channel == null ? null : (InetSocketAddress) channel.getLocalAddress();
            } catch (IOException e) {
                return null;
            }
        }
    }

    /** Answers sent. */
    public long answered() {
        return answered.get();
    }

    /** Datagrams dropped because they are not a valid probe (wrong magic, version, size or padding). */
    public long ignored() {
        return ignored.get();
    }

    /** Valid probes left unanswered because of the rate limit. */
    public long rateLimited() {
        return rateLimited.get();
    }

    private void serve() {
        ByteBuffer in =
                ByteBuffer.allocate(DiscoveryDatagram.PROBE_LENGTH + 1); // +1: an oversized datagram shows as such
        DatagramChannel ch = channel;
        while (!closed) {
            InetSocketAddress from;
            try {
                in.clear();
                from = (InetSocketAddress) ch.receive(in);
            } catch (ClosedChannelException e) {
                break;
            } catch (IOException e) {
                if (closed) {
                    break;
                }
                log.debug("Hub discovery: receive failed: {}", e.toString());
                continue;
            }
            try {
                answer(ch, in, from);
            } catch (RuntimeException e) {
                // A bug here must not end discovery for everyone.
                log.warn("Hub discovery: answering {} failed", from, e);
            }
        }
        log.debug("Hub discovery responder stopped");
    }

    private void answer(DatagramChannel ch, ByteBuffer in, InetSocketAddress from) {
        DiscoveryDatagram.Probe probe;
        try {
            probe = DiscoveryDatagram.decodeProbe(in.array(), in.position());
        } catch (ProtocolException e) {
            ignored.incrementAndGet();
            log.debug("Hub discovery: ignoring a datagram from {}: {}", from, e.getMessage());
            return;
        }
        List<InetSocketAddress> addresses = answerableAddresses();
        if (addresses.isEmpty()) {
            log.debug("Hub discovery: no link address to announce; probe from {} unanswered", from);
            return;
        }
        if (!rateLimit.tryAcquire(from.getAddress())) {
            rateLimited.incrementAndGet();
            log.debug("Hub discovery: rate limit reached, probe from {} unanswered", from);
            return;
        }
        byte[] out = DiscoveryDatagram.encode(new DiscoveryDatagram.Answer(probe.nonce(), hubName, addresses));
        try {
            ch.send(ByteBuffer.wrap(out), from);
            answered.incrementAndGet();
        } catch (IOException e) {
            log.debug("Hub discovery: answer to {} failed: {}", from, e.toString());
        }
    }

    /** The link addresses an answer can carry: IP addresses with a port, at most the format's maximum. */
    private List<InetSocketAddress> answerableAddresses() {
        List<InetSocketAddress> out = new ArrayList<>();
        for (InetSocketAddress a : linkAddresses.get()) {
            if (!a.isUnresolved()
                    && a.getPort() > 0
                    && !a.getAddress().isMulticastAddress()
                    && !out.contains(a)
                    && out.size() < DiscoveryDatagram.MAX_ADDRESSES) {
                out.add(a);
            }
        }
        return out;
    }

    /** Up interfaces with an IPv4 address, loopback included (a node on this host), multicast-capable or loopback. */
    private static List<NetworkInterface> multicastInterfaces() {
        List<NetworkInterface> out = new ArrayList<>();
        try {
            for (NetworkInterface nif : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                if (nif.isUp()
                        && (nif.supportsMulticast() || nif.isLoopback())
                        && nif.inetAddresses().anyMatch(a -> a instanceof Inet4Address)) {
                    out.add(nif);
                }
            }
        } catch (SocketException e) {
            log.debug("Hub discovery: listing interfaces failed: {}", e.toString());
        }
        return out;
    }

    /** Stops answering and frees the port; idempotent. */
    @Override
    public void close() {
        Thread t;
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            t = thread;
            if (channel != null) {
                try {
                    channel.close(); // unblocks receive
                } catch (IOException e) {
                    log.debug("Hub discovery: closing the socket failed: {}", e.toString());
                }
            }
        }
        if (t != null && t != Thread.currentThread()) {
            try {
                t.join(1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public String toString() {
        InetSocketAddress local = localAddress();
        return "DiscoveryResponder['" + hubName + "' on " + (local == null ? "udp port " + port : local) + "]";
    }

    /** Where to listen and how much to answer. */
    public static final class Builder {
        private final String hubName;
        private final Supplier<List<InetSocketAddress>> linkAddresses;
        private InetAddress bindAddress;
        private int port = HubFinder.DEFAULT_PORT;
        private InetAddress group = HubFinder.DEFAULT_GROUP;
        private List<NetworkInterface> interfaces = List.of();
        private double answersPerSecond = 64;
        private int answerBurst = 64;
        private double answersPerSourcePerSecond = 4;
        private int answerBurstPerSource = 8;

        private Builder(String hubName, Supplier<List<InetSocketAddress>> linkAddresses) {
            if (hubName.getBytes(StandardCharsets.UTF_8).length > DiscoveryDatagram.MAX_NAME_BYTES) {
                throw new IllegalArgumentException("hub name '" + hubName + "' is longer than "
                        + DiscoveryDatagram.MAX_NAME_BYTES + " bytes and cannot be announced");
            }
            this.hubName = hubName;
            this.linkAddresses = linkAddresses;
        }

        /** Listen on this address only (default: every interface, which broadcasts need). */
        public Builder bindAddress(InetAddress address) {
            bindAddress = address;
            return this;
        }

        /** The UDP port; 0 picks a free one (tests). */
        public Builder port(int udpPort) {
            if (udpPort < 0 || udpPort > 65535) {
                throw new IllegalArgumentException("port " + udpPort + " is not within 0-65535");
            }
            port = udpPort;
            return this;
        }

        public Builder group(InetAddress multicastGroup) {
            if (!(multicastGroup instanceof Inet4Address) || !multicastGroup.isMulticastAddress()) {
                throw new IllegalArgumentException(multicastGroup + " is not an IPv4 multicast group");
            }
            group = multicastGroup;
            return this;
        }

        /** Join the group on these interfaces only (default: every up IPv4 interface that can). */
        public Builder interfaces(List<NetworkInterface> list) {
            interfaces = List.copyOf(list);
            return this;
        }

        /** Answers per second overall and the burst allowed above that rate. */
        public Builder answerRate(double perSecond, int burst) {
            answersPerSecond = perSecond;
            answerBurst = burst;
            return this;
        }

        /** Answers per second to one source address and the burst allowed above that rate. */
        public Builder answerRatePerSource(double perSecond, int burst) {
            answersPerSourcePerSecond = perSecond;
            answerBurstPerSource = burst;
            return this;
        }

        public DiscoveryResponder build() {
            return new DiscoveryResponder(this);
        }
    }
}
