package io.traverse;

import io.traverse.identity.NodeId;
import java.net.InetSocketAddress;
import java.time.Instant;
import java.util.Optional;

/**
 * The state of a node's link to the hub network, for applications and diagnostics.
 *
 * @param state what the link is doing
 * @param hubName the connected hub's name as the hub network lists it (its {@code host:port}
 *        until the node has asked), or null
 * @param hubId the connected hub's id, or null
 * @param hubAddress the link address of the connected hub, or null
 * @param observedAddress where the hub saw this node's link come from (its public side behind
 *        NAT), or null; the splice module uses it
 * @param since when the link entered this state
 * @param lastFailure why the last link attempt or link failed, or null
 * @param refusedForSetting the last round of link attempts ended with a hub refusing this node for
 *        one of its settings (wrong network token, a link protocol version the hub does not speak):
 *        the node keeps trying, but only a changed setting will help, so whatever waits for the link
 *        fails at once with {@code lastFailure} instead of waiting for its deadline
 */
public record HubLinkStatus(
        State state,
        String hubName,
        NodeId hubId,
        InetSocketAddress hubAddress,
        InetSocketAddress observedAddress,
        Instant since,
        String lastFailure,
        boolean refusedForSetting) {

    /** A status whose last failure, if any, was not a refusal for a setting. */
    public HubLinkStatus(
            State state,
            String hubName,
            NodeId hubId,
            InetSocketAddress hubAddress,
            InetSocketAddress observedAddress,
            Instant since,
            String lastFailure) {
        this(state, hubName, hubId, hubAddress, observedAddress, since, lastFailure, false);
    }

    /** What the link is doing. */
    public enum State {
        /** No hub configured, and discovery is off or found none: the node works without hubs. */
        NO_HUB,
        /** Looking for hubs on the site network. */
        DISCOVERING,
        /** Dialling or authenticating (first time or after a failure). */
        CONNECTING,
        /** Linked and authenticated. */
        CONNECTED,
        /** The node is closed. */
        CLOSED
    }

    public boolean isConnected() {
        return state == State.CONNECTED;
    }

    /**
     * True while the node is linked or is getting a link (connecting, or looking for hubs by
     * discovery): what needs the hub network is worth waiting for. False when the node has no
     * hub to link to, or is closed.
     */
    public boolean isExpected() {
        return state == State.CONNECTED || state == State.CONNECTING || state == State.DISCOVERING;
    }

    public Optional<InetSocketAddress> observed() {
        return Optional.ofNullable(observedAddress);
    }

    @Override
    public String toString() {
        return switch (state) {
            case CONNECTED -> "connected to hub '" + hubName + "' at " + hubAddress + ", seen from " + observedAddress;
            case NO_HUB -> "no hub" + (lastFailure == null ? "" : " (" + lastFailure + ")");
            default ->
                state.name().toLowerCase(java.util.Locale.ROOT)
                        + (lastFailure == null ? "" : " (last failure: " + lastFailure + ")");
        };
    }
}
