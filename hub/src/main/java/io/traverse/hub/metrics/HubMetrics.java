package io.traverse.hub.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.traverse.hub.AdmissionLimit;
import io.traverse.wire.RejectCode;
import io.traverse.wire.SideMessageError;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntSupplier;

/**
 * Counters and gauges of one hub, safe to update from any thread. The hub's state loop sets the
 * gauges' values; links count refusals; the side channel counts its traffic. {@link #scrape()}
 * gives the Prometheus text format.
 */
public final class HubMetrics {
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final AtomicInteger nodes = new AtomicInteger();
    private final AtomicInteger hubLinks = new AtomicInteger();
    private final AtomicInteger knownHubs = new AtomicInteger();
    private final AtomicInteger reachableHubs = new AtomicInteger();
    private final AtomicInteger names = new AtomicInteger();
    private final Map<AdmissionLimit, Counter> overloads = new EnumMap<>(AdmissionLimit.class);
    private final LongAdder sideDelivered = new LongAdder();
    private final LongAdder sideForwarded = new LongAdder();
    private final LongAdder sideBytesForwarded = new LongAdder();
    private final LongAdder relayDelivered = new LongAdder();
    private final LongAdder relayForwarded = new LongAdder();
    private final LongAdder relayBytesDelivered = new LongAdder();
    private final LongAdder relayBytesForwarded = new LongAdder();
    private final LongAdder relayHolds = new LongAdder();
    private final LongAdder relayWindowCredits = new LongAdder();
    private final ModuleSetUps setUps = new ModuleSetUps();
    private final Map<SideMessageError, Counter> sideErrors = new EnumMap<>(SideMessageError.class);
    private final Map<RejectCode, Counter> refusals = new EnumMap<>(RejectCode.class);
    private final Counter gossipReceived;
    private final LongAdder gossipBytes = new LongAdder();
    private final Counter gossipAccepted;
    private final Counter digestsForSummaries;
    private final Counter idConflicts;

    public HubMetrics(String hubName) {
        registry.config().commonTags("hub", hubName);
        Gauge.builder("traverse.hub.nodes", nodes, AtomicInteger::get)
                .description("nodes connected to this hub")
                .register(registry);
        Gauge.builder("traverse.hub.links", hubLinks, AtomicInteger::get)
                .description("live links to other hubs")
                .register(registry);
        Gauge.builder("traverse.hub.known.hubs", knownHubs, AtomicInteger::get)
                .description("other hubs known by gossip")
                .register(registry);
        Gauge.builder("traverse.hub.reachable.hubs", reachableHubs, AtomicInteger::get)
                .description("other hubs with a route")
                .register(registry);
        Gauge.builder("traverse.hub.names", names, AtomicInteger::get)
                .description("names registered in the reachable network")
                .register(registry);
        // One description per name: Prometheus has one HELP line per metric, whichever series came first.
        String sideMessages =
                "side messages this hub passed on: delivered to a node of this hub, or forwarded to another hub";
        FunctionCounter.builder("traverse.hub.side.messages", sideDelivered, LongAdder::sum)
                .tag("outcome", "delivered")
                .description(sideMessages)
                .register(registry);
        FunctionCounter.builder("traverse.hub.side.messages", sideForwarded, LongAdder::sum)
                .tag("outcome", "forwarded")
                .description(sideMessages)
                .register(registry);
        FunctionCounter.builder("traverse.hub.side.forwarded", sideBytesForwarded, LongAdder::sum)
                .baseUnit("bytes")
                .description("side message payload bytes forwarded to another hub")
                .register(registry);
        for (SideMessageError error : SideMessageError.values()) {
            sideErrors.put(
                    error,
                    Counter.builder("traverse.hub.side.errors")
                            .tag("kind", error.name())
                            .description("side requests this hub answered with an error")
                            .register(registry));
        }
        String relayFrames =
                "relay frames of routed connections this hub passed on: delivered to a node of this hub, or forwarded"
                        + " to another hub";
        FunctionCounter.builder("traverse.hub.relay.frames", relayDelivered, LongAdder::sum)
                .tag("outcome", "delivered")
                .description(relayFrames)
                .register(registry);
        FunctionCounter.builder("traverse.hub.relay.frames", relayForwarded, LongAdder::sum)
                .tag("outcome", "forwarded")
                .description(relayFrames)
                .register(registry);
        String relayBytes = "payload bytes of those relay frames, by the same outcome";
        FunctionCounter.builder("traverse.hub.relay.bytes", relayBytesDelivered, LongAdder::sum)
                .tag("outcome", "delivered")
                .baseUnit("bytes")
                .description(relayBytes)
                .register(registry);
        FunctionCounter.builder("traverse.hub.relay.bytes", relayBytesForwarded, LongAdder::sum)
                .tag("outcome", "forwarded")
                .baseUnit("bytes")
                .description(relayBytes)
                .register(registry);
        FunctionCounter.builder("traverse.hub.relay.holds", relayHolds, LongAdder::sum)
                .description(
                        "relay frames after which this hub stopped reading the link they came from, because the link they go out on"
                                + " could not take more (holds nest)")
                .register(registry);
        FunctionCounter.builder("traverse.hub.relay.window.credits", relayWindowCredits, LongAdder::sum)
                .description(
                        "CREDIT frames this hub made for connections to a slow node, passing on its credit only as far as"
                                + " it wrote to the node")
                .register(registry);
        for (String module : setUps.modules()) {
            FunctionCounter.builder("traverse.hub.connection.setups", setUps.counter(module), LongAdder::sum)
                    .tag("module", module)
                    .description(
                            "connection set-ups this hub passed on, by module: routed (OPEN frames), reverse and splice"
                                    + " (their side requests)")
                    .register(registry);
        }
        for (RejectCode code : RejectCode.values()) {
            refusals.put(
                    code,
                    Counter.builder("traverse.hub.links.refused")
                            .tag("code", code.name())
                            .description("links this hub refused or ended with a REJECT")
                            .register(registry));
        }
        for (AdmissionLimit limit : AdmissionLimit.values()) {
            overloads.put(
                    limit,
                    Counter.builder("traverse.hub.overload.refusals")
                            .tag("limit", limit.tag())
                            .description(
                                    "links and relayed connections refused with OVERLOAD, by the limit that refused them")
                            .register(registry));
        }
        gossipReceived = Counter.builder("traverse.hub.gossip.received")
                .description("hub descriptions received")
                .register(registry);
        digestsForSummaries = Counter.builder("traverse.hub.gossip.summary.digests")
                .description(
                        "digests sent because a neighbour's gossip summary differed from this hub's (anti-entropy repairs)")
                .register(registry);
        gossipAccepted = Counter.builder("traverse.hub.gossip.accepted")
                .description("hub descriptions that were news")
                .register(registry);
        FunctionCounter.builder("traverse.hub.gossip.bytes", gossipBytes, LongAdder::sum)
                .baseUnit("bytes")
                .description(
                        "bytes of GOSSIP, GOSSIP_DIGEST and GOSSIP_SUMMARY frames received from other hubs, length prefix included"
                                + " (copies that were no news too)")
                .register(registry);
        idConflicts = Counter.builder("traverse.hub.id.conflicts")
                .description("times another hub was found using this hub's id (any increase needs an operator)")
                .register(registry);
    }

    public void nodes(int count) {
        nodes.set(count);
    }

    public void hubLinks(int count) {
        hubLinks.set(count);
    }

    public void hubs(int known, int reachable) {
        knownHubs.set(known);
        reachableHubs.set(reachable);
    }

    public void names(int count) {
        names.set(count);
    }

    public void sideDelivered() {
        sideDelivered.increment();
    }

    public void sideForwarded(int payloadBytes) {
        sideForwarded.increment();
        sideBytesForwarded.add(payloadBytes);
    }

    public void sideError(SideMessageError error) {
        sideErrors.get(error).increment();
    }

    public void relayDelivered(int payloadBytes) {
        relayDelivered.increment();
        relayBytesDelivered.add(payloadBytes);
    }

    public void relayForwarded(int payloadBytes) {
        relayForwarded.increment();
        relayBytesForwarded.add(payloadBytes);
    }

    /** A link's reading held for relay backpressure. */
    public void relayHold() {
        relayHolds.increment();
    }

    /** A CREDIT of this hub's own sent for a connection's delivery window. */
    public void relayWindowCredit() {
        relayWindowCredits.increment();
    }

    public long relayHolds() {
        return relayHolds.sum();
    }

    public long relayWindowCredits() {
        return relayWindowCredits.sum();
    }

    /** A routed connection's OPEN frame passed on. */
    public void routedOpen() {
        setUps.routedOpen();
    }

    /** A side request passed on (delivered or forwarded). */
    public void sideRequest(String service) {
        setUps.sideRequest(service);
    }

    /** Connection set-ups passed on so far, by module (routed, reverse, splice). */
    public Map<String, Long> connectionSetUps() {
        return setUps.snapshot();
    }

    /** Payload bytes of relay frames delivered to nodes of this hub so far. */
    public long relayBytesDelivered() {
        return relayBytesDelivered.sum();
    }

    /** Payload bytes of relay frames forwarded to other hubs so far. */
    public long relayBytesForwarded() {
        return relayBytesForwarded.sum();
    }

    /** A relay frame this hub could not pass on ({@code kind} names why); rare, so the counter is looked up each time. */
    public void relayFailure(String kind) {
        Counter.builder("traverse.hub.relay.failures")
                .tag("kind", kind)
                .description("relay frames this hub answered with a RESET (or dropped, for a RESET)")
                .register(registry)
                .increment();
    }

    /** Gauges of the relayed connections held now, and of how many of them wait for an answer; registered once. */
    public void relayedConnections(IntSupplier held, IntSupplier setups) {
        Gauge.builder("traverse.hub.relayed.connections", held, IntSupplier::getAsInt)
                .description("relayed connections with an end at a node of this hub (setups included)")
                .strongReference(true)
                .register(registry);
        Gauge.builder("traverse.hub.relayed.setups", setups, IntSupplier::getAsInt)
                .description("relayed connections of nodes of this hub that wait for their ACCEPT or REFUSE")
                .strongReference(true)
                .register(registry);
    }

    /** A link or relayed connection refused by an admission limit. */
    public void overloaded(AdmissionLimit limit) {
        overloads.get(limit).increment();
    }

    public void refused(RejectCode code) {
        refusals.get(code).increment();
    }

    public void idConflict() {
        idConflicts.increment();
    }

    public void gossip(boolean accepted) {
        gossipReceived.increment();
        if (accepted) {
            gossipAccepted.increment();
        }
    }

    /**
     * A neighbour's gossip summary still differed from ours a moment after it came: this hub sent
     * its digest to catch up (anti-entropy). Zero in a network that floods every change to everyone.
     */
    public void digestForSummary() {
        digestsForSummaries.increment();
    }

    /** Digests sent because a neighbour's summary differed from ours. */
    public long digestsForSummaries() {
        return (long) digestsForSummaries.count();
    }

    /** A GOSSIP, GOSSIP_DIGEST or GOSSIP_SUMMARY frame of this many bytes (length prefix included) arrived on a hub link; any thread. */
    public void gossipBytesReceived(int frameBytes) {
        gossipBytes.add(frameBytes);
    }

    /** Bytes of gossip frames received from other hubs so far. */
    public long gossipBytesReceived() {
        return gossipBytes.sum();
    }

    /** The Prometheus text exposition of every metric. */
    public String scrape() {
        return registry.scrape();
    }

    public PrometheusMeterRegistry registry() {
        return registry;
    }
}
