package io.traverse.hub.http;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the hub has passed on so far, read from its counters at one moment.
 *
 * @param relayBytesDelivered payload bytes of relay frames delivered to nodes of this hub
 * @param relayBytesForwarded payload bytes of relay frames forwarded to other hubs
 * @param connectionSetUps connection set-ups passed on, by module (routed, reverse, splice)
 * @param longPollSessions long-poll sessions open now
 */
public record HubTraffic(
        long relayBytesDelivered, long relayBytesForwarded, Map<String, Long> connectionSetUps, int longPollSessions) {
    public HubTraffic {
        connectionSetUps = Collections.unmodifiableMap(new LinkedHashMap<>(connectionSetUps)); // in the order given
    }
}
