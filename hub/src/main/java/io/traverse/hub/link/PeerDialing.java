package io.traverse.hub.link;

import io.netty.util.concurrent.EventExecutor;
import io.traverse.identity.NodeId;
import io.traverse.wire.LinkAddress;
import io.traverse.wire.RejectCode;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which hub addresses to dial and when (paper §3.3.1: a hub connects to its configured peers and
 * to every hub it learns of). Each address is dialled while the hub behind it has no live link,
 * with {@link RedialBackoff} between failures; an address that turns out to lead back to this
 * hub is never dialled again, one whose hub has this hub's id only every {@code redialMax}. State-loop only: {@link #tick} runs there periodically.
 */
public final class PeerDialing {
    private static final Logger log = LoggerFactory.getLogger(PeerDialing.class);

    private final HubDialer dialer;
    private final EventExecutor stateLoop;
    private final Duration redialMin;
    private final Duration redialMax;
    private final Predicate<NodeId> linked;
    private final Map<String, Target> targets = new LinkedHashMap<>();
    private boolean closed;

    private final class Target {
        final String text;
        final InetSocketAddress address;
        final boolean configured;
        final RedialBackoff backoff = new RedialBackoff(redialMin, redialMax);
        NodeId hubId;
        boolean inFlight;
        boolean leadsHere;
        /** No longer gossiped, but a dial was under way: dropped when it ends. */
        boolean forgotten;

        long nextAttemptNanos;

        Target(String text, InetSocketAddress address, boolean configured, NodeId hubId) {
            this.text = text;
            this.address = address;
            this.configured = configured;
            this.hubId = hubId;
        }
    }

    /**
     * How long a hub waits before dialling a hub it learned of whose id is smaller than its own:
     * both ends keep the link dialled by the smaller id, which dials at once, so dialling too would
     * only make a duplicate link. The wait covers a smaller hub that cannot reach this one.
     */
    static final Duration DEFER_TO_SMALLER_ID = Duration.ofSeconds(2);

    private final NodeId selfId;

    private final BiConsumer<String, LinkRefusedException> idConflicts;

    /**
     * @param idConflicts told of an address whose hub refused the link because another hub has
     *        this hub's id (the refusal says which), with the address as dialled
     */
    public PeerDialing(
            NodeId selfId,
            HubDialer dialer,
            EventExecutor stateLoop,
            Duration redialMin,
            Duration redialMax,
            Predicate<NodeId> linked,
            BiConsumer<String, LinkRefusedException> idConflicts) {
        this.selfId = selfId;
        this.idConflicts = idConflicts;
        this.dialer = dialer;
        this.stateLoop = stateLoop;
        this.redialMin = redialMin;
        this.redialMax = redialMax;
        this.linked = linked;
    }

    /** A configured peer, dialled for as long as the hub runs. */
    public void addConfiguredPeer(String hostPort) {
        InetSocketAddress address = LinkAddress.parse(hostPort, LinkAddress.DEFAULT_PORT);
        targets.put(LinkAddress.format(address), new Target(hostPort, address, true, null));
    }

    /**
     * A hub's advertised addresses changed in gossip: it was learned of, re-described or forgotten
     * (an empty list). Only its own addresses are looked at, so a network of many hubs costs
     * nothing per description that leaves the addresses alone. An address no longer advertised
     * is forgotten unless it is a configured peer or another hub's; a dial under way ends first.
     */
    public void gossipedAddressesChanged(NodeId hub, List<String> before, List<String> after) {
        for (String text : before) {
            if (after.contains(text)) {
                continue;
            }
            String key = canonical(text);
            Target target = key == null ? null : targets.get(key);
            if (target == null || target.configured || (target.hubId != null && !target.hubId.equals(hub))) {
                continue;
            }
            if (target.inFlight) {
                target.forgotten = true;
            } else {
                targets.remove(key);
            }
        }
        for (String text : after) {
            String key = canonical(text);
            if (key == null) {
                continue;
            }
            Target target = targets.get(key);
            if (target == null) {
                Target learned = new Target(text, LinkAddress.parse(key), false, hub);
                if (hub.compareTo(selfId) < 0) {
                    learned.nextAttemptNanos = System.nanoTime() + DEFER_TO_SMALLER_ID.toNanos();
                }
                targets.put(key, learned);
            } else {
                target.forgotten = false;
                target.hubId = hub;
            }
        }
    }

    /** The address in canonical form, or null if it is not one. */
    private static String canonical(String text) {
        try {
            return LinkAddress.format(LinkAddress.parse(text));
        } catch (IllegalArgumentException bad) {
            return null;
        }
    }

    /** Dials every address whose hub is not linked and whose backoff has passed. */
    public void tick(long nowNanos) {
        if (closed) {
            return;
        }
        for (Target target : targets.values()) {
            if (target.inFlight || target.leadsHere) {
                continue;
            }
            if (target.hubId != null && linked.test(target.hubId)) {
                // When this link goes, the first redial waits only the minimum delay.
                target.backoff.reset();
                target.nextAttemptNanos = nowNanos + TimeUnit.MILLISECONDS.toNanos(target.backoff.firstDelayMillis());
                continue;
            }
            if (nowNanos - target.nextAttemptNanos < 0) {
                continue;
            }
            dial(target);
        }
    }

    private void dial(Target target) {
        target.inFlight = true;
        log.debug("Dialling hub at {}", target.text);
        dialer.dial(target.address)
                .whenComplete((link, failure) -> stateLoop.execute(() -> {
                    target.inFlight = false;
                    if (target.forgotten) {
                        targets.values().remove(target);
                        return;
                    }
                    long now = System.nanoTime();
                    if (failure == null) {
                        target.hubId = link.peerId();
                        target.backoff.reset();
                        return;
                    }
                    Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                            ? failure.getCause()
                            : failure;
                    if (cause instanceof LinkRefusedException refused && refused.peerId() != null) {
                        // Now we know whom this address leads to: no redial while that hub is linked another way.
                        target.hubId = refused.peerId();
                    }
                    if (cause instanceof LinkRefusedException refused && refused.leadsBackHere()) {
                        // This hub itself: dialling again cannot help.
                        target.leadsHere = true;
                        log.warn("Not dialling {} any more: it leads back to this hub", target.text);
                        return;
                    }
                    if (cause instanceof LinkRefusedException refused && refused.code() == RejectCode.DUPLICATE_ID) {
                        idConflicts.accept(target.text, refused);
                        if (selfId.equals(refused.peerId())) {
                            // The hub there has this hub's id: tried again now and then, as an operator may give one of
                            // them a new id.
                            target.nextAttemptNanos = now + redialMax.toNanos();
                            return;
                        }
                        // A third hub holds a hub with this hub's id: that may be this hub's earlier life, about to go.
                        // Usual backoff.
                    }
                    if (cause instanceof LinkRefusedException refused && refused.code() == RejectCode.DUPLICATE_LINK) {
                        log.debug("Hub at {} is linked with this one already", target.text);
                        return;
                    }
                    long delay = target.backoff.nextDelayMillis();
                    target.nextAttemptNanos = now + TimeUnit.MILLISECONDS.toNanos(delay);
                    if (target.backoff.failures() == 1 || cause instanceof LinkRefusedException) {
                        log.info(
                                "Could not link to hub at {}: {}; retrying in {} ms",
                                target.text,
                                cause.getMessage(),
                                delay);
                    } else {
                        log.debug(
                                "Could not link to hub at {}: {}; retrying in {} ms",
                                target.text,
                                cause.getMessage(),
                                delay);
                    }
                }));
    }

    public void close() {
        closed = true;
    }
}
