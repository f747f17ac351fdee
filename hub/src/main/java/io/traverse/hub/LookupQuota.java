package io.traverse.hub;

import io.traverse.hub.metrics.HubMetrics;
import io.traverse.identity.NodeId;
import io.traverse.wire.Lookup;
import io.traverse.wire.LookupResult;
import io.traverse.wire.ResultStatus;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * How many lookups each node of this hub may ask: a token bucket per node of {@code burst}
 * lookups refilled at {@code perSecond} ({@link AdmissionLimit#LOOKUPS_PER_NODE}). The hub answers
 * a lookup on its state loop, at once, so there is never more than one in flight per node here;
 * what a node could take from everyone else is the state loop's time, and a rate bounds that. A
 * lookup beyond it is answered LIMIT, with the reason as its one entry; the node's link and its
 * other requests go on.
 *
 * <p>Each bucket is one number, the instant it would be full again, as in the hub's link rate.
 * State loop only.
 */
final class LookupQuota {
    private final String hubName;
    private final int perSecond;
    private final int burst;
    private final long nanosPerLookup;
    private final long slackNanos;
    private final HubMetrics metrics;
    private final Map<NodeId, Long> fullAt = new HashMap<>();

    LookupQuota(String hubName, int perSecond, int burst, HubMetrics metrics) {
        this.hubName = hubName;
        this.perSecond = perSecond;
        this.burst = burst;
        this.nanosPerLookup = TimeUnit.SECONDS.toNanos(1) / perSecond;
        this.slackNanos = (burst - 1) * nanosPerLookup;
        this.metrics = metrics;
    }

    /** Null when {@code node} may ask {@code lookup} now (and it is counted), else the answer refusing it. */
    LookupResult refusal(NodeId node, Lookup lookup, long nowNanos) {
        Long full = fullAt.get(node);
        long from = full != null && full - nowNanos > 0 ? full : nowNanos;
        if (from - nowNanos > slackNanos) {
            metrics.overloaded(AdmissionLimit.LOOKUPS_PER_NODE);
            return new LookupResult(lookup.requestId(), ResultStatus.LIMIT, List.of(reason(node)));
        }
        fullAt.put(node, from + nanosPerLookup);
        return null;
    }

    /** A node left: its bucket goes (it is full again by the time it could matter). */
    void forget(NodeId node) {
        fullAt.remove(node);
    }

    String reason(NodeId node) {
        return AdmissionLimit.LOOKUPS_PER_NODE.reason(
                "node " + node + " asks lookups faster than " + perSecond + " a second after a burst of " + burst + " ("
                        + AdmissionLimit.LOOKUP_BURST_KEY + ")",
                hubName);
    }
}
