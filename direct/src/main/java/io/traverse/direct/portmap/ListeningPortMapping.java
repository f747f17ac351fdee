package io.traverse.direct.portmap;

import io.traverse.spi.AdvertisedExternal;
import io.traverse.spi.ModuleContext;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the node's listening port mapped on the NAT router in front of it (paper §3.2.1: a
 * forwarded port is an external address) and the mapped address in the node's identity.
 *
 * <p>All network work runs on one background thread, so node start and connects never wait for
 * it: the protocols of {@code traverse.portmap.protocols} are tried in order, the first mapping
 * made is advertised ({@link ModuleContext#advertiseExternal}, which re-announces the identity to
 * the hub) and renewed at half its granted lease. A failed renewal withdraws the address, deletes
 * the mapping (best effort) and starts over; when no protocol maps, it tries again later with a growing pause. {@link #close()}
 * (and a JVM shutdown hook, for a JVM ended by SIGTERM) deletes the mapping at the router and
 * withdraws the address, waiting a few seconds at most: a router that does not answer keeps the
 * mapping until its lease ends.
 */
public final class ListeningPortMapping implements Closeable {
    private static final Logger log = LoggerFactory.getLogger(ListeningPortMapping.class);
    private static final Duration UPNP_DISCOVERY = Duration.ofSeconds(2);
    private static final Duration FIRST_RETRY = Duration.ofSeconds(30);
    private static final Duration MAX_RETRY = Duration.ofMinutes(30);
    private static final Duration MIN_RENEWAL = Duration.ofSeconds(30);
    /** Permanent UPnP mappings are still re-added now and then, in case the router restarted. */
    private static final Duration PERMANENT_RECHECK = Duration.ofMinutes(30);
    /** How long close() waits for work in progress, and for the deletion at the router: close must not hang on a dead router. */
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(3);

    private final ModuleContext context;
    private final List<PortMapper> mappers;
    private final Duration lease;
    private final ScheduledExecutorService worker;
    private final Thread shutdownHook;
    /** Shortest pause before a renewal and first pause before mapping again (constants; shorter in tests). */
    private final Duration minRenewal;

    private final Duration firstRetry;
    private Duration retry;
    // Written by the worker, taken by close() once the worker has stopped or close() gave up
    // waiting for it; changes after start hold the handoff lock, so a worker that outlives the
    // wait either hands its mapping to close() or, once close() has taken over, deletes it itself.
    private final Object handoff = new Object();
    private volatile PortMapper mapper;
    private volatile MappedPort mapped;
    private volatile AdvertisedExternal advertised;
    private volatile boolean closed;
    /** close() has taken the mapping to delete: anything the worker holds after that is its own to delete (guarded by handoff). */
    private boolean handedOff;

    private ListeningPortMapping(
            ModuleContext context, Duration lease, List<PortMapper> mappers, Duration minRenewal, Duration firstRetry) {
        this.context = context;
        this.mappers = mappers;
        this.minRenewal = minRenewal;
        this.firstRetry = firstRetry;
        this.retry = firstRetry;
        this.lease = lease;
        this.worker = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "traverse-portmap");
            t.setDaemon(true);
            return t;
        });
        this.shutdownHook = new Thread(this::closeAtExit, "traverse-portmap-cleanup");
    }

    /** Starts mapping in the background; returns at once. */
    public static ListeningPortMapping start(ModuleContext context, PortMappingSettings settings) {
        InetAddress bind = context.config().bindAddress().orElse(null);
        List<PortMapper> mappers = new ArrayList<>();
        Optional<InetAddress> gateway = settings.gateway().or(DefaultGateway::find);
        for (String protocol : settings.protocols()) {
            switch (protocol) {
                case UpnpIgdMapper.NAME -> mappers.add(new UpnpIgdMapper(UPNP_DISCOVERY, bind));
                case PcpMapper.NAME -> gateway.ifPresent(g -> mappers.add(new PcpMapper(g)));
                case NatPmpMapper.NAME -> gateway.ifPresent(g -> mappers.add(new NatPmpMapper(g)));
                default -> throw new IllegalStateException("unknown port-mapping protocol " + protocol);
            }
        }
        if (gateway.isEmpty() && !settings.protocols().stream().allMatch(UpnpIgdMapper.NAME::equals)) {
            log.info(
                    "Port mapping: no default gateway found (set traverse.portmap.gateway); PCP and NAT-PMP are skipped");
        }
        return start(context, settings.lease(), mappers, MIN_RENEWAL, FIRST_RETRY);
    }

    /** Starts with the given lease, protocols and pauses (tests use short ones). */
    static ListeningPortMapping start(
            ModuleContext context, Duration lease, List<PortMapper> mappers, Duration minRenewal, Duration firstRetry) {
        ListeningPortMapping mapping =
                new ListeningPortMapping(context, lease, List.copyOf(mappers), minRenewal, firstRetry);
        Runtime.getRuntime().addShutdownHook(mapping.shutdownHook);
        mapping.worker.execute(mapping::establish);
        return mapping;
    }

    /** The mapping held now, if any. */
    public Optional<MappedPort> current() {
        return Optional.ofNullable(mapped);
    }

    /** Worker: tries each protocol in order until one maps the port. */
    private void establish() {
        int port = context.listeningPort();
        List<String> failures = new ArrayList<>();
        for (PortMapper m : mappers) {
            if (closed) {
                return;
            }
            try {
                long started = System.nanoTime();
                MappedPort made = m.map(port, lease);
                synchronized (handoff) {
                    if (closed) {
                        keepForClose(m, made);
                        return;
                    }
                    mapper = m;
                    mapped = made;
                    advertised = context.advertiseExternal(made.external());
                }
                retry = firstRetry;
                log.info("Port mapping made in {} ms: {}", (System.nanoTime() - started) / 1_000_000, made);
                scheduleRenewal(made);
                return;
            } catch (IOException | RuntimeException e) {
                failures.add(m.name() + ": " + e.getMessage());
                log.debug("Port mapping through {} failed", m.name(), e);
            }
        }
        log.info(
                "No port mapping for TCP port {} ({}); trying again in {} s",
                port,
                failures.isEmpty() ? "no protocol available" : String.join("; ", failures),
                retry.toSeconds());
        schedule(this::establish, retry);
        retry = retry.multipliedBy(2).compareTo(MAX_RETRY) > 0 ? MAX_RETRY : retry.multipliedBy(2);
    }

    private void scheduleRenewal(MappedPort m) {
        Duration half = m.lease().isZero() ? PERMANENT_RECHECK : m.lease().dividedBy(2);
        schedule(this::renew, half.compareTo(minRenewal) < 0 ? minRenewal : half);
    }

    /** Worker: renews the mapping; a lost one is withdrawn and made again. */
    private void renew() {
        MappedPort old = mapped;
        if (closed || old == null) {
            return;
        }
        PortMapper by = mapper;
        MappedPort renewed;
        try {
            renewed = by.renew(old, lease);
        } catch (IOException | RuntimeException e) {
            synchronized (handoff) {
                if (closed) {
                    return; // close() interrupted the renewal (or it failed as close came): close() deletes the mapping
                    // it holds
                }
                log.warn("Renewing port mapping {} failed ({}); withdrawing it and mapping again", old, e.getMessage());
                advertised.withdraw();
                advertised = null;
                mapped = null;
            }
            // The router may still hold it (a lost reply), and the next mapping may land on another
            // port or protocol: delete it first, or it outlives close() until its lease ends.
            try {
                by.unmap(old);
            } catch (IOException | RuntimeException gone) {
                log.debug("Deleting port mapping {} after its failed renewal failed too: {}", old, gone.getMessage());
            }
            establish();
            return;
        }
        synchronized (handoff) {
            if (closed) {
                keepForClose(by, renewed);
                return;
            }
            mapped = renewed;
            if (!renewed.external().equals(old.external())) {
                log.info("Port mapping moved: {} (was {})", renewed, old.external());
                advertised.withdraw();
                advertised = context.advertiseExternal(renewed.external());
            } else {
                log.debug("Port mapping renewed: {}", renewed);
            }
        }
        scheduleRenewal(renewed);
    }

    /**
     * Worker, holding the handoff lock, once closed: a mapping made or renewed while close() waits
     * is left for close() to delete (unadvertised); after close() gave up waiting it is deleted here,
     * since a late renewal may have made the mapping again after close() deleted it.
     */
    private void keepForClose(PortMapper by, MappedPort m) {
        if (!handedOff) {
            mapper = by;
            mapped = m;
            return;
        }
        try {
            by.unmap(m);
            log.info("Port mapping made while closing removed: {}", m);
        } catch (IOException | RuntimeException e) {
            log.warn(
                    "Removing port mapping {} made while closing failed: {} (it expires with its lease)",
                    m,
                    e.getMessage());
        }
    }

    private void schedule(Runnable task, Duration delay) {
        if (!closed) {
            worker.schedule(task, delay.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /** Deletes the mapping at the router and withdraws the address; waits at most ~6 s (work in progress, then the deletion). */
    @Override
    public void close() {
        if (!stop()) {
            return;
        }
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException shuttingDown) {
            // the hook is running or about to: it finds the work done
        }
    }

    private void closeAtExit() {
        stop();
    }

    /** Deletes {@code m} at the router on a thread of its own, waiting at most {@code wait} (an HTTP call may hang). */
    private static void unmapWithin(PortMapper by, MappedPort m, Duration wait) {
        Thread deleting = new Thread(
                () -> {
                    try {
                        by.unmap(m);
                        log.info("Port mapping removed: {}", m);
                    } catch (IOException | RuntimeException e) {
                        log.warn("Removing port mapping {} failed: {} (it expires with its lease)", m, e.getMessage());
                    }
                },
                "traverse-portmap-delete");
        deleting.setDaemon(true);
        deleting.start();
        try {
            deleting.join(wait.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (deleting.isAlive()) {
            log.warn(
                    "Removing port mapping {} takes longer than {} s; leaving it to finish (or to expire with its lease)",
                    m,
                    wait.toSeconds());
        }
    }

    /** Returns false if already stopped. */
    private synchronized boolean stop() {
        if (closed) {
            return false;
        }
        closed = true;
        worker.shutdownNow();
        try {
            if (!worker.awaitTermination(CLOSE_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                log.warn("Port mapping work did not stop within {} s", CLOSE_WAIT.toSeconds());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        MappedPort m;
        PortMapper by;
        AdvertisedExternal a;
        synchronized (handoff) {
            handedOff = true;
            m = mapped;
            by = mapper;
            a = advertised;
            mapped = null;
            advertised = null;
        }
        if (m != null) {
            unmapWithin(by, m, CLOSE_WAIT);
        }
        if (a != null) {
            a.withdraw();
        }
        return true;
    }
}
