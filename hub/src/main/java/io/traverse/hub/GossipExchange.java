package io.traverse.hub;

import io.traverse.hub.gossip.HubDirectory;
import io.traverse.hub.gossip.StateNumber;
import io.traverse.hub.link.Link;
import io.traverse.hub.link.PeerDialing;
import io.traverse.hub.metrics.HubMetrics;
import io.traverse.identity.NodeId;
import io.traverse.wire.Gossip;
import io.traverse.wire.GossipDigest;
import io.traverse.wire.GossipSummary;
import io.traverse.wire.HubDescription;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What hub links tell each other of other hubs: descriptions that are news are kept and flooded
 * on, and digests and summaries (anti-entropy) repair what the flood missed. This hub's own
 * description is the {@link GossipPublisher}'s. State loop only.
 */
final class GossipExchange {
    /** Under the coordinator's name, as the hub has always logged these: log filters keep working. */
    private static final Logger log = LoggerFactory.getLogger(HubCore.class);

    /**
     * Summaries that differ from ours this many times in a row from one link get our digest even
     * while gossip keeps changing both (a network forming, or much churn): a repair at least
     * every so many refresh intervals, and at most one digest per link that often meanwhile.
     */
    static final int FORCE_DIGEST_ROUNDS = 6;

    private final NodeId selfId;
    private final String name;
    private final List<String> advertised;
    private final StateNumber state;
    private final HubDirectory directory;
    /** The coordinator's live hub links, by peer (read only here). */
    private final Map<NodeId, Link> hubLinks;

    private final HubMetrics metrics;
    private final GossipPublisher publisher;
    private final RouteScheduler routeScheduler;
    private final IdConflictReports idConflicts;
    /** Run when news changes what the hub knows of the network but not the graph: what was derived from it is stale. */
    private final Runnable networkChanged;

    private PeerDialing dialing;
    /** Per hub link, what anti-entropy knows of it (the same keys as the hub links' values). */
    private final Map<Link, LinkSync> syncs = new IdentityHashMap<>();

    /** Anti-entropy state of one hub link. */
    private static final class LinkSync {
        /** The link's own catch-up digest has arrived; later digests answer our summaries. */
        boolean caughtUp;
        /** The neighbour's last summary, and ours when it arrived (null before the first). */
        GossipSummary theirs;

        GossipSummary ours;
        /** Summaries in a row that differed from ours, since the last digest. */
        int differing;
    }

    GossipExchange(
            NodeId selfId,
            String name,
            List<String> advertised,
            StateNumber state,
            HubDirectory directory,
            Map<NodeId, Link> hubLinks,
            HubMetrics metrics,
            GossipPublisher publisher,
            RouteScheduler routeScheduler,
            IdConflictReports idConflicts,
            Runnable networkChanged) {
        this.selfId = selfId;
        this.name = name;
        this.advertised = advertised;
        this.state = state;
        this.directory = directory;
        this.hubLinks = hubLinks;
        this.metrics = metrics;
        this.publisher = publisher;
        this.routeScheduler = routeScheduler;
        this.idConflicts = idConflicts;
        this.networkChanged = networkChanged;
    }

    /** Where hubs whose gossiped addresses change are dialled (none in some tests). */
    void dialing(PeerDialing peerDialing) {
        this.dialing = peerDialing;
    }

    /**
     * A new hub link: we send what we know, by state number only. The peer answers with the
     * descriptions we lack and we answer its digest likewise (a hub joining a dense network would
     * otherwise receive the whole directory from each of its many new links).
     */
    void linkEstablished(Link link) {
        syncs.put(link, new LinkSync());
        sendDigest(link);
    }

    void linkGone(Link link) {
        syncs.remove(link);
    }

    /** A description from a hub link: news is kept and flooded on; one with our id is ours coming back, or another hub's. */
    void onGossip(Link from, HubDescription description) {
        if (description.hubId().equals(selfId)) {
            if (!description.name().equals(name)
                    || !Set.copyOf(description.linkAddresses()).equals(Set.copyOf(advertised))) {
                // Not ours, in any life that shares our name and addresses. (A life before a change of name or
                // addresses
                // would be reported too; its descriptions come back only while ahead of ours, which a clock rarely
                // allows.)
                idConflicts.gossipWithOurId(from, description);
                return;
            }
            // Our own gossip comes back through neighbours at or below our state; above it is an earlier life of this
            // hub.
            if (Long.compareUnsigned(description.stateNumber(), state.current()) > 0) {
                log.info(
                        "Hub network holds state {} of this hub, ahead of ours: moving past it",
                        description.stateNumber());
                state.raiseAbove(description.stateNumber());
                publisher.ownChanged();
            }
            return;
        }
        HubDescription previous = directory.get(description.hubId());
        boolean news = directory.offer(description, System.nanoTime());
        metrics.gossip(news);
        if (!news) {
            return;
        }
        // Most news is about links and nodes; the dial targets change only with a hub's addresses, the
        // routes only with its links (a refresh or a node joining changes neither).
        List<String> previousAddresses = previous == null ? List.of() : previous.linkAddresses();
        boolean addressesChanged = !previousAddresses.equals(description.linkAddresses());
        boolean linksChanged = routeScheduler.list(
                description.hubId(), directory.neighbourSets().get(description.hubId()));
        // Flood on, except back to the sender and to the hubs this description lists as the origin's
        // neighbours: the origin sent it to each of them itself, as it lists exactly the links it sends
        // on. In a full mesh that is everyone, so a description travels once per hub. Skipping more on
        // a guess that another hub forwards (by this hub's view of the links) missed hubs while a hub
        // joined, at 1,000 hubs, until anti-entropy repaired them seconds later; copies that are no
        // news cost little (dropped on the I/O thread after their id and state number).
        NodeId origin = description.hubId();
        Set<NodeId> toldByOrigin = directory.neighbourSets().getOrDefault(origin, Set.of());
        List<Link> to = new ArrayList<>();
        for (Map.Entry<NodeId, Link> neighbour : hubLinks.entrySet()) {
            NodeId peer = neighbour.getKey();
            if (neighbour.getValue() != from && !peer.equals(origin) && !toldByOrigin.contains(peer)) {
                to.add(neighbour.getValue());
            }
        }
        GossipPublisher.sendToAll(new Gossip(description), to);
        if (linksChanged) {
            routeScheduler.topologyChanged();
        } else {
            networkChanged.run();
        }
        if (addressesChanged && dialing != null) {
            dialing.gossipedAddressesChanged(origin, previousAddresses, description.linkAddresses());
        }
    }

    /** What we hold, by hub id and state number: our own first, then every description held. */
    private void sendDigest(Link link) {
        List<GossipDigest.Entry> digest = new ArrayList<>(directory.size() + 1);
        // Our own entry too: a peer holding a newer state of us (an earlier life with a clock that was ahead) sends it
        // back.
        digest.add(new GossipDigest.Entry(selfId, state.current()));
        directory.stateNumbers().forEach((hub, stateNumber) -> digest.add(new GossipDigest.Entry(hub, stateNumber)));
        link.send(new GossipDigest(digest));
    }

    /**
     * Sends the peer every description it lacks or holds an older state of; its own only when we
     * hold a newer state of it than it has (an earlier life). The first digest of a link is its
     * catch-up: descriptions whose origin lists the peer as a neighbour are left out (the origin
     * sent them itself), and so is ours (published to every new link). A later digest answers
     * summaries that differed, so something was missed: then those go too, but only descriptions
     * of hubs reachable from here, as summaries count them.
     */
    void onDigest(Link from, GossipDigest digest) {
        LinkSync sync = syncs.get(from);
        boolean catchUp = sync == null || !sync.caughtUp;
        if (sync != null) {
            sync.caughtUp = true;
        }
        Map<NodeId, Long> held = new HashMap<>(digest.entries().size() * 2);
        for (GossipDigest.Entry e : digest.entries()) {
            held.put(e.hubId(), e.stateNumber());
        }
        int sent = 0;
        NodeId peer = from.peerId();
        for (HubDescription known : directory.descriptions()) {
            Long theirs = held.get(known.hubId());
            boolean newer = theirs == null || Long.compareUnsigned(known.stateNumber(), theirs) > 0;
            boolean send;
            if (known.hubId().equals(peer)) {
                send = theirs != null && newer;
            } else {
                // A new link's catch-up sends unreachable hubs too: a hub that just joined may not be reachable yet
                // here (the description of its link's other end is on its way), and the peer missed its flood. An
                // answer to summaries leaves them out, as summaries do (a dead hub held here until its expiry would
                // otherwise go round again; a hub forgotten recently refuses its old states anyway).
                send = newer
                        && (catchUp
                                ? !directory
                                        .neighbourSets()
                                        .getOrDefault(known.hubId(), Set.of())
                                        .contains(peer)
                                : directory.isReachable(known.hubId()));
            }
            if (send) {
                from.send(new Gossip(known));
                sent++;
            }
        }
        Long ownHeld = held.get(selfId);
        if (!catchUp
                && (ownHeld == null || Long.compareUnsigned(state.current(), ownHeld) > 0)
                && !publisher.changePending()) {
            from.send(new Gossip(publisher.ownDescription()));
            sent++;
        }
        log.debug(
                "Hub {} holds {} descriptions; sent it the {} it lacked ({})",
                peer,
                held.size(),
                sent,
                catchUp ? "new link" : "anti-entropy");
    }

    /**
     * A neighbour's summary of what it holds (anti-entropy, every gossip refresh interval). Equal
     * to ours: nothing to do. Different while either summary changed since the neighbour's last
     * one: gossip is under way and the flood settles it, so we wait (a network forming would
     * otherwise swap whole digests on every link every interval). Different although neither
     * changed for a whole interval: something was missed, and we send our digest, which the
     * neighbour answers with what we lack; what it lacks comes the other way, when our summary
     * reaches it. After {@link #FORCE_DIGEST_ROUNDS} differing summaries in a row the digest goes
     * anyway.
     */
    void onSummary(Link from, GossipSummary theirs) {
        LinkSync sync = syncs.get(from);
        if (sync == null) {
            return;
        }
        GossipSummary ours = publisher.ownSummary();
        boolean stable = theirs.equals(sync.theirs) && ours.equals(sync.ours);
        sync.theirs = theirs;
        sync.ours = ours;
        if (theirs.equals(ours)) {
            sync.differing = 0;
            return;
        }
        sync.differing++;
        if (!stable && sync.differing < FORCE_DIGEST_ROUNDS) {
            return;
        }
        log.debug(
                "Hub {} holds {} descriptions (hash {}), this hub {} ({} summaries in a row differed): sending our digest",
                from.peerId(),
                theirs.descriptions(),
                Long.toHexString(theirs.hash()),
                ours,
                sync.differing);
        sync.differing = 0;
        metrics.digestForSummary();
        sendDigest(from);
    }
}
