package io.traverse.hub;

import io.traverse.identity.NodeId;
import java.util.List;
import java.util.Map;

/**
 * A snapshot of a hub's view of the hub network, for tests, the status document and operators.
 *
 * @param stateNumber the state number of this hub's description
 * @param hubLinks live links to neighbouring hubs
 * @param routes reachable hubs (not this one) with next hop and hop count
 * @param knownHubs every hub description held, reachable or not (not this one)
 * @param nodes nodes connected to this hub
 * @param names every name of the reachable network, by canonical name
 */
public record HubStatus(NodeId hubId, String name, long stateNumber, List<String> advertisedAddresses, List<HubLinkStatus> hubLinks,
        Map<NodeId, RouteStatus> routes, Map<NodeId, KnownHubStatus> knownHubs, List<NodeStatus> nodes, Map<String, NameStatus> names,
        long sideMessagesDelivered, long sideMessagesForwarded, Map<String, Long> sideMessageErrors) {

    /** A live link to another hub. */
    public record HubLinkStatus(NodeId peerId, boolean dialledByUs, String remoteAddress, long rttMicros) {
    }

    /** How to reach a hub. */
    public record RouteStatus(NodeId nextHop, int hops) {
    }

    /** A hub known by gossip. */
    public record KnownHubStatus(String name, long stateNumber, List<String> linkAddresses, List<NodeId> neighbours, boolean reachable) {
    }

    /** A node connected here. */
    public record NodeStatus(NodeId nodeId, String identityText, String observedAddress, long rttMicros, Map<String, Integer> names) {
    }

    /** Who holds a name. */
    public record NameStatus(NodeId nodeId, NodeId hubId, int virtualPort) {
    }
}
