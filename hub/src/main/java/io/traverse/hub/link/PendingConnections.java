package io.traverse.hub.link;

import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import io.traverse.hub.AdmissionLimit;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Connections a port has accepted that have not yet shown what they are: a link in its handshake,
 * an HTTP connection before its first request has arrived whole. Each holds a place here from
 * accept until then (or until it closes); a deadline elsewhere closes it if that takes too long
 * (the handshake timeout, {@link HttpRequestDeadline}).
 *
 * <p>Two bounds keep a flood of silent or slow connections (slowloris) from taking the hub's file
 * descriptors and memory, and from locking real nodes out:
 * <ul>
 *   <li>all together at most {@code max}: when full, the connection that has waited longest is
 *       closed to make room, so a flood is cycled out rather than filling the port until its
 *       deadlines pass (a real node's handshake takes a round trip or two; a flood must send
 *       {@code max} connections within that to close it). Connections that have not yet begun
 *       ({@link Slot#begun()}: a link whose whole preamble came) go first, longest-waiting first:
 *       a real node sends its preamble at once, a silent or trickling flood does not, so on a
 *       machine too busy to finish a handshake in time the flood is cut before the nodes;
 *   <li>from one IP address at most {@code maxPerAddress} (when set): beyond that the new
 *       connection is closed at once, so one flooding machine cannot even cycle out the others.
 * </ul>
 * Every connection closed here is counted by its limit ({@code onRefused}), and logged at most
 * once in a while. Safe on any thread: a short lock per accept and per release.
 */
public final class PendingConnections {
    /** The place a connection holds here, on its channel: released when it has shown what it is. */
    public static final AttributeKey<Slot> SLOT = AttributeKey.valueOf("traverse-pending-slot");

    private static final Logger log = LoggerFactory.getLogger(PendingConnections.class);
    /** At most one warning about closed connections in this long: a flood must not flood the log too. */
    private static final long WARN_GAP_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final String port;
    private final AdmissionLimit limit;
    private final int max;
    private final AdmissionLimit perAddressLimit;
    private final int maxPerAddress;
    private final Consumer<AdmissionLimit> onRefused;
    /** Not begun yet, oldest first. Guarded by this. */
    private final LinkedHashMap<Slot, Boolean> waiting = new LinkedHashMap<>();
    /** Begun, oldest first. Guarded by this. */
    private final LinkedHashMap<Slot, Boolean> begun = new LinkedHashMap<>();
    /** Guarded by this. */
    private final Map<InetAddress, Integer> byAddress = new HashMap<>();

    private final AtomicLong closed = new AtomicLong();
    private final AtomicLong lastWarnNanos = new AtomicLong(System.nanoTime() - WARN_GAP_NANOS);

    /**
     * @param port            what the log calls the port ("link port", "HTTP port")
     * @param limit           the limit on all of them (longest-waiting closed)
     * @param perAddressLimit the limit per IP address (new one closed), or null for none
     * @param onRefused       run for every connection closed by a limit (counting)
     */
    public PendingConnections(
            String port,
            AdmissionLimit limit,
            int max,
            AdmissionLimit perAddressLimit,
            int maxPerAddress,
            Consumer<AdmissionLimit> onRefused) {
        if (max < 1 || (perAddressLimit != null && maxPerAddress < 1)) {
            throw new IllegalArgumentException("pending connections: " + max + " and " + maxPerAddress);
        }
        this.port = port;
        this.limit = limit;
        this.max = max;
        this.perAddressLimit = perAddressLimit;
        this.maxPerAddress = maxPerAddress;
        this.onRefused = onRefused;
    }

    /**
     * Takes a place for a connection just accepted, and puts it on the channel ({@link #SLOT});
     * the place is given back when the channel closes at the latest. False when the channel is
     * closed instead (its address holds its most). May close the longest-waiting other connection.
     */
    public boolean admit(Channel channel) {
        return admit(channel, true);
    }

    /**
     * As {@link #admit(Channel)}; {@code perAddress} false leaves the connection out of its
     * address's count (a long-poll session's link: every node behind one HTTP proxy has the proxy's
     * address).
     */
    public boolean admit(Channel channel, boolean perAddress) {
        InetAddress address = perAddress ? addressOf(channel.remoteAddress()) : null;
        Slot slot = new Slot(address, channel);
        Slot evicted = null;
        synchronized (this) {
            if (perAddressLimit != null && address != null && byAddress.getOrDefault(address, 0) >= maxPerAddress) {
                slot = null;
            } else {
                if (waiting.size() + begun.size() >= max) {
                    Iterator<Slot> oldest =
                            (waiting.isEmpty() ? begun : waiting).keySet().iterator();
                    evicted = oldest.next();
                    oldest.remove();
                    evicted.released = true;
                    forget(evicted.address);
                }
                waiting.put(slot, Boolean.TRUE);
                if (address != null) {
                    byAddress.merge(address, 1, Integer::sum);
                }
            }
        }
        if (evicted != null) {
            refused(limit, evicted.channel, max + " connections are waiting; closed the one waiting longest");
            evicted.channel.close();
        }
        if (slot == null) {
            refused(perAddressLimit, channel, maxPerAddress + " connections from " + address + " are waiting");
            channel.close();
            return false;
        }
        channel.attr(SLOT).set(slot);
        channel.closeFuture().addListener(f -> release(channel));
        return true;
    }

    /** The connection on {@code channel} has shown what it is (or closed): its place is free. */
    public static void release(Channel channel) {
        Slot slot = channel.attr(SLOT).get();
        if (slot != null) {
            slot.release();
        }
    }

    /** Connections waiting now. */
    public synchronized int size() {
        return waiting.size() + begun.size();
    }

    /** Connections closed by the limits so far. */
    public long closed() {
        return closed.get();
    }

    private void forget(InetAddress address) {
        if (address != null) {
            byAddress.computeIfPresent(address, (a, n) -> n == 1 ? null : n - 1);
        }
    }

    private void refused(AdmissionLimit which, Channel channel, String what) {
        long n = closed.incrementAndGet();
        onRefused.accept(which);
        long now = System.nanoTime();
        long last = lastWarnNanos.get();
        if (now - last >= WARN_GAP_NANOS && lastWarnNanos.compareAndSet(last, now)) {
            log.warn(
                    "Closing connections on the {}: {} (such as {}), the most {} allows; {} closed so far",
                    port,
                    what,
                    channel.remoteAddress(),
                    which.key(),
                    n);
        }
    }

    private static InetAddress addressOf(SocketAddress remote) {
        return remote instanceof InetSocketAddress inet ? inet.getAddress() : null;
    }

    /** One connection's place. */
    public final class Slot {
        private final InetAddress address;
        private final Channel channel;
        /** Guarded by the enclosing {@link PendingConnections}. */
        private boolean released;

        private Slot(InetAddress address, Channel channel) {
            this.address = address;
            this.channel = channel;
        }

        /** Gives the place back; once only, whoever calls. */
        public void release() {
            synchronized (PendingConnections.this) {
                if (released) {
                    return;
                }
                released = true;
                if (waiting.remove(this) == null) {
                    begun.remove(this);
                }
                forget(address);
            }
        }

        /** The connection has begun its handshake as a real peer does: closed only after every one that has not. */
        public void begun() {
            synchronized (PendingConnections.this) {
                if (!released && waiting.remove(this) != null) {
                    begun.put(this, Boolean.TRUE);
                }
            }
        }
    }
}
