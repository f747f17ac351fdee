package io.traverse.hub.http;

import io.traverse.hub.HubStatus;
import java.util.concurrent.CompletionStage;

/** Where the endpoint gets what it serves; neither call may block. */
public interface StatusSource {
    /** The hub's status, taken on its state loop. */
    CompletionStage<HubStatus> status();

    /** The Prometheus text exposition. */
    String metrics();
}
