package io.traverse.hub;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.concurrent.EventExecutor;
import io.traverse.hub.gossip.HubDirectory;
import io.traverse.hub.gossip.StateNumber;
import io.traverse.hub.link.Link;
import io.traverse.hub.registry.ConnectedNode;
import io.traverse.hub.registry.NameReservations;
import io.traverse.hub.registry.NodeRegistry;
import io.traverse.identity.NodeId;
import io.traverse.wire.Gossip;
import io.traverse.wire.GossipSummary;
import io.traverse.wire.HubDescription;
import io.traverse.wire.LinkMessage;
import io.traverse.wire.LinkMessageEncoder;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * This hub's own description and when it goes out: changes coalesce into one publication per
 * burst, a new hub link's first round trip is waited for, and every refresh interval each hub
 * link gets our summary instead of a re-publication. State loop only.
 */
final class GossipPublisher {
    /**
     * How long a publication waits for the first round trip of a new hub link (its keepalive pings
     * at once): a description without it would be published again with it, one more flood per link.
     */
    static final long FIRST_RTT_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(1000);

    private static final long FIRST_RTT_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
    /** Changes of this hub's own description within this gap (or longer: {@link #publishGapNanos}) go out as one gossip. */
    static final long MIN_PUBLISH_GAP_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    static final long PUBLISH_GAP_PER_LINK_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    static final long MAX_PUBLISH_GAP_NANOS = TimeUnit.MILLISECONDS.toNanos(1000);

    private final NodeId selfId;
    private final String name;
    private final List<String> advertised;
    private final StateNumber state;
    private final EventExecutor stateLoop;
    private final NodeRegistry registry;
    private final NameReservations reservations;
    private final HubDirectory directory;
    /** The coordinator's live hub links, by peer (read only here). */
    private final Map<NodeId, Link> hubLinks;

    private final BooleanSupplier shuttingDown;
    /** Run at every change of our description, before its publication is scheduled: what was derived from it is stale. */
    private final Runnable changed;

    private boolean ownDirty;
    /** While {@link #ownDirty}: when the scheduled publication runs. */
    private long publishDueNanos;
    /** Neighbours whose link's round trip was not measured yet when our description last went out (state loop). */
    private Set<NodeId> publishedUnmeasured = Set.of();
    /** The scheduled publication includes a lost link: it waits for no round trip. */
    private boolean publishUrgent;
    /** New hub links whose first round trip our next description waits for, until when (state loop). */
    private final Map<Link, Long> firstRttDeadlines = new IdentityHashMap<>();

    private long lastPublishNanos = System.nanoTime() - MIN_PUBLISH_GAP_NANOS;

    GossipPublisher(
            NodeId selfId,
            String name,
            List<String> advertised,
            StateNumber state,
            EventExecutor stateLoop,
            NodeRegistry registry,
            NameReservations reservations,
            HubDirectory directory,
            Map<NodeId, Link> hubLinks,
            BooleanSupplier shuttingDown,
            Runnable changed) {
        this.selfId = selfId;
        this.name = name;
        this.advertised = advertised;
        this.state = state;
        this.stateLoop = stateLoop;
        this.registry = registry;
        this.reservations = reservations;
        this.directory = directory;
        this.hubLinks = hubLinks;
        this.shuttingDown = shuttingDown;
        this.changed = changed;
    }

    /** A new hub link: our next description waits for its first round trip (at most {@link #FIRST_RTT_WAIT_NANOS}). */
    void linkAdded(Link link) {
        firstRttDeadlines.put(link, System.nanoTime() + FIRST_RTT_WAIT_NANOS);
    }

    void linkGone(Link link) {
        firstRttDeadlines.remove(link);
    }

    /** Whether a change of our description waits to be published. */
    boolean changePending() {
        return ownDirty;
    }

    /** Our own description and those of the hubs our routes reach, as a neighbour would summarise them when it agrees. */
    GossipSummary ownSummary() {
        return directory.summary(selfId, state.current());
    }

    /**
     * Our description changed: publish it once the tasks queued now are done, and at most once per
     * {@link #MIN_PUBLISH_GAP_NANOS}, so that a burst of changes (a hub joining a dense network
     * gains a link a millisecond) becomes one gossip instead of one per change.
     */
    void ownChanged() {
        ownChanged(false);
    }

    /** @param urgent a lost link: published after the minimum gap, as it withdraws routes */
    void ownChanged(boolean urgent) {
        publishUrgent |= urgent;
        changed.run();
        long due = lastPublishNanos + (urgent ? MIN_PUBLISH_GAP_NANOS : publishGapNanos());
        if (ownDirty && due - publishDueNanos >= 0) {
            return;
        }
        ownDirty = true;
        publishDueNanos = due;
        long wait = due - System.nanoTime();
        if (wait <= 0) {
            stateLoop.execute(this::publishOwn);
        } else {
            stateLoop.schedule(this::publishOwn, wait, TimeUnit.NANOSECONDS);
        }
    }

    /**
     * Each publication costs one copy per linked hub, each decoded there: with many links, publish
     * less often ({@link #MIN_PUBLISH_GAP_NANOS}, plus {@link #PUBLISH_GAP_PER_LINK_NANOS} per hub
     * link, at most {@link #MAX_PUBLISH_GAP_NANOS}), so that a network forming around a hundred
     * hubs is not drowned in descriptions outdated by the next link.
     */
    private long publishGapNanos() {
        return Math.min(MAX_PUBLISH_GAP_NANOS, MIN_PUBLISH_GAP_NANOS + PUBLISH_GAP_PER_LINK_NANOS * hubLinks.size());
    }

    private void publishOwn() {
        if (!ownDirty || System.nanoTime() - publishDueNanos < 0) {
            return; // published already by an earlier (urgent) schedule, or superseded by a later one
        }
        if (!publishUrgent && !shuttingDown.getAsBoolean() && awaitingFirstRoundTrips()) {
            stateLoop.schedule(this::publishOwn, FIRST_RTT_POLL_NANOS, TimeUnit.NANOSECONDS);
            return;
        }
        ownDirty = false;
        publishUrgent = false;
        lastPublishNanos = System.nanoTime();
        if (shuttingDown.getAsBoolean()) {
            return;
        }
        state.next();
        HubDescription own = ownDescription();
        Set<NodeId> unmeasured = new HashSet<>();
        for (int i = 0; i < own.neighbours().size(); i++) {
            if (own.neighbourRttMicros().get(i) == HubDescription.RTT_UNKNOWN) {
                unmeasured.add(own.neighbours().get(i));
            }
        }
        publishedUnmeasured = unmeasured;
        sendToAll(new Gossip(own), hubLinks.values());
    }

    /** Whether a new hub link's first round trip is still due (and not overdue). */
    private boolean awaitingFirstRoundTrips() {
        long now = System.nanoTime();
        firstRttDeadlines.entrySet().removeIf(e -> e.getKey().rttMicros() >= 0 || now - e.getValue() > 0);
        return !firstRttDeadlines.isEmpty();
    }

    /** A link our last description listed as not measured yet has its first round trip now. */
    private boolean firstTimesSincePublished() {
        for (NodeId neighbour : publishedUnmeasured) {
            Link link = hubLinks.get(neighbour);
            if (link != null && link.rttMicros() >= 0) {
                return true;
            }
        }
        return false;
    }

    /** Encodes a message once for many links. */
    static void sendToAll(LinkMessage message, Collection<Link> links) {
        if (links.isEmpty()) {
            return;
        }
        ByteBuf frame = LinkMessageEncoder.frame(message, ByteBufAllocator.DEFAULT);
        try {
            for (Link link : links) {
                link.sendFrame(frame.retainedDuplicate());
            }
        } finally {
            frame.release();
        }
    }

    /**
     * Every gossip refresh interval: anti-entropy, not re-publication. Each hub link gets our
     * {@link GossipSummary} (12 bytes), and a neighbour that holds something else asks for what
     * differs ({@link GossipExchange#onSummary}). Our description goes out only when it changes; the link
     * round-trip times ride along then (a new time alone is no change: republishing for times
     * would flood the network as the old refresh did). One exception, at most once per interval:
     * links that were not measured yet when we last published have their first times now, so
     * every hub's view (the dashboard's map) gets them within an interval of a link being made,
     * not only at our next change.
     */
    void refresh() {
        if (!shuttingDown.getAsBoolean()) {
            if (firstTimesSincePublished()) {
                ownChanged();
            }
            sendToAll(ownSummary(), hubLinks.values());
        }
    }

    HubDescription ownDescription() {
        List<NodeId> neighbours = new ArrayList<>(hubLinks.keySet());
        neighbours.sort(Comparator.naturalOrder());
        List<HubDescription.NodeEntry> nodes = new ArrayList<>();
        List<HubDescription.NameEntry> names = new ArrayList<>();
        for (ConnectedNode node : registry.nodes()) {
            nodes.add(new HubDescription.NodeEntry(node.id(), node.identityText()));
            node.names().forEach((n, port) -> names.add(new HubDescription.NameEntry(n, node.id(), port)));
        }
        // Listed so that every hub refuses the name to other nodes, and gives it back to its node wherever it relinks.
        reservations
                .all()
                .forEach((n, r) ->
                        names.add(new HubDescription.NameEntry(n, r.holder(), HubDescription.NameEntry.RESERVED)));
        // The times ride along whenever the description goes out (a change, or the refresh): a new time alone is no
        // change.
        List<Long> rtts = new ArrayList<>(neighbours.size());
        for (NodeId neighbour : neighbours) {
            long rtt = hubLinks.get(neighbour).rttMicros();
            rtts.add(rtt < 0 ? HubDescription.RTT_UNKNOWN : Math.min(rtt, HubDescription.RTT_UNKNOWN - 1));
        }
        return new HubDescription(selfId, state.current(), name, advertised, neighbours, nodes, names, rtts);
    }
}
