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
 * @param idSource where this hub's key, and with it its id, comes from ("key kept in FILE", "key new at every start");
 *        null from a hub older than this field
 * @param idConflicts other hubs found using this hub's id, most recently seen first (empty: none);
 *        null from a hub older than this field
 */
public record HubStatus(
        NodeId hubId,
        String name,
        long stateNumber,
        List<String> advertisedAddresses,
        List<HubLinkStatus> hubLinks,
        Map<NodeId, RouteStatus> routes,
        Map<NodeId, KnownHubStatus> knownHubs,
        List<NodeStatus> nodes,
        Map<String, NameStatus> names,
        long sideMessagesDelivered,
        long sideMessagesForwarded,
        Map<String, Long> sideMessageErrors,
        String idSource,
        List<IdConflictStatus> idConflicts) {

    /**
     * A hub that uses another's id: mostly this hub's id, also the id of another hub linked here.
     * Two hubs with one id cannot both be part of a network: one of them needs a new id
     * (docs/operations.md, "Hub ids").
     *
     * @param hubId the id two hubs have
     * @param seen how: {@code dialled-us} (it dialled this hub, refused), {@code we-dialled} (this
     *        hub dialled it, refused), {@code gossip} (its description reached this hub),
     *        {@code reported} (a third hub refused this hub's link: another hub with this hub's id
     *        is linked there), {@code both-linked-here} (it dialled this hub while another hub with
     *        its id was linked here, refused)
     * @param otherName its name, when known
     * @param otherAddress where it linked from, or the address dialled; null when seen by gossip
     * @param otherAdvertisedAddresses the addresses it advertises, when known
     * @param detail what was seen, in words
     * @param times how often it was seen, between the first and the last time (epoch milliseconds)
     */
    public record IdConflictStatus(
            NodeId hubId,
            String seen,
            String otherName,
            String otherAddress,
            List<String> otherAdvertisedAddresses,
            String detail,
            long firstSeenMillis,
            long lastSeenMillis,
            long times) {}

    /** A live link to another hub. */
    public record HubLinkStatus(NodeId peerId, boolean dialledByUs, String remoteAddress, long rttMicros) {}

    /** How to reach a hub. */
    public record RouteStatus(NodeId nextHop, int hops) {}

    /**
     * A hub known by gossip.
     *
     * @param neighbourRttMicros the round-trip time that hub last measured to each neighbour, in
     *        the order of {@code neighbours}, -1 where not measured; null from a hub older than this field
     */
    public record KnownHubStatus(
            String name,
            long stateNumber,
            List<String> linkAddresses,
            List<NodeId> neighbours,
            boolean reachable,
            List<Long> neighbourRttMicros) {}

    /** A node connected here. */
    public record NodeStatus(
            NodeId nodeId, String identityText, String observedAddress, long rttMicros, Map<String, Integer> names) {}

    /** Who holds a name. */
    public record NameStatus(NodeId nodeId, NodeId hubId, int virtualPort) {}
}
