package io.traverse.hub.http;

import io.traverse.hub.HubStatus;
import java.util.concurrent.CompletionStage;

/** Where the endpoint gets what it serves; no call may block. */
public interface StatusSource {
    /** The hub's status, taken on its state loop. */
    CompletionStage<HubStatus> status();

    /** The Prometheus text exposition. */
    String metrics();

    /** The traffic counters now (any thread). */
    HubTraffic traffic();
}
