package io.traverse.hub.link;

import io.traverse.identity.NodeId;
import io.traverse.security.LinkTls;
import io.traverse.wire.LinkAuthentication;
import io.traverse.wire.RejectCode;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * What the link layer needs to know about its hub: who it is (for HELLO and CHALLENGE), the
 * token, and the timings. The state number is read when a HELLO is sent. {@code ownChallenges}
 * tells a dial that leads back to this hub from one that reaches another hub with its id;
 * {@code linkRate} bounds how fast links are accepted; {@code tls} runs links under the hub's key.
 */
public record LinkSettings(
        NodeId hubId,
        String hubName,
        List<String> advertisedAddresses,
        LongSupplier stateNumber,
        LinkAuthentication authentication,
        Duration handshakeTimeout,
        Duration keepaliveInterval,
        int maxQueuedMessagesPerLink,
        Consumer<RejectCode> rejectsSent,
        OwnChallenges ownChallenges,
        LinkRate linkRate,
        LinkTls tls) {
    public LinkSettings {
        advertisedAddresses = List.copyOf(advertisedAddresses);
    }
}
