package io.traverse.hub;

import io.traverse.hub.gossip.HubDirectory;
import io.traverse.hub.identity.IdConflicts;
import io.traverse.hub.link.Link;
import io.traverse.hub.link.LinkRefusedException;
import io.traverse.hub.metrics.HubMetrics;
import io.traverse.identity.NodeId;
import io.traverse.wire.HubDescription;
import io.traverse.wire.HubHello;
import io.traverse.wire.LinkAddress;
import io.traverse.wire.Reject;
import io.traverse.wire.RejectCode;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Two hubs found sharing an id, wherever they meet (a link here, a dial of ours, gossip): each
 * is refused where a link is at stake, logged once naming both hubs, counted, and kept for the
 * status, so that the operator can give one of them a new id. State loop only.
 */
final class IdConflictReports {
    /** Under the coordinator's name, as the hub has always logged these: log filters keep working. */
    private static final Logger log = LoggerFactory.getLogger(HubCore.class);

    private final IdConflicts idConflicts = new IdConflicts();
    private final NodeId selfId;
    private final String name;
    private final List<String> advertised;
    private final String idSource;
    private final HubDirectory directory;
    private final HubMetrics metrics;

    IdConflictReports(
            NodeId selfId,
            String name,
            List<String> advertised,
            String idSource,
            HubDirectory directory,
            HubMetrics metrics) {
        this.selfId = selfId;
        this.name = name;
        this.advertised = advertised;
        this.idSource = idSource;
        this.directory = directory;
        this.metrics = metrics;
    }

    /** The conflicts seen so far, for the status. */
    List<IdConflicts.Conflict> list() {
        return idConflicts.list();
    }

    /**
     * A hub with this hub's id linked here: refused, with both hubs named in the refusal, the log
     * and the status. Neither can join the other's network under one id; the operator must give
     * one of them a new id.
     */
    Reject otherHubWithOurId(Link link) {
        String from = link.remoteAddress() == null ? "(unknown)" : LinkAddress.format(link.remoteAddress());
        String otherName = null;
        List<String> otherAdvertised = List.of();
        if (link.hello() instanceof HubHello hello) {
            otherName = hello.hubName();
            otherAdvertised = hello.linkAddresses();
        }
        String both = "two hubs have id " + selfId + ": hub '" + name + "' (advertising " + addresses(advertised) + ", "
                + idSource
                + ") and hub '" + (otherName == null ? "?" : otherName) + "' (advertising " + addresses(otherAdvertised)
                + ") linking from " + from;
        boolean first = idConflicts.record(
                selfId,
                IdConflicts.Seen.DIALLED_US,
                otherName,
                from,
                otherAdvertised,
                "its link was refused: " + both,
                System.currentTimeMillis());
        if (first) {
            log.warn(
                    "Hub id conflict: {}. Refused its link; give one of the two hubs a new id (docs/operations.md, \"Hub ids\")",
                    both);
        } else {
            log.debug("Refused the link of hub '{}' from {}: it has this hub's id {}", otherName, from, selfId);
        }
        metrics.idConflict();
        return Reject.of(RejectCode.DUPLICATE_ID, both + "; give one of them a new id");
    }

    /**
     * Two hubs that dialled this one under one id, telling different names or addresses in their
     * HELLOs: two hubs, not two links of one (those tell the same). The one linked first keeps the
     * id here and the newcomer is refused, naming both; replacing one by the other would make the
     * two take turns at every redial. A hub restarted with another name or addresses is refused
     * too while its old link lingers (at most three keepalive intervals), and gets in at a redial.
     * Links this hub dialled carry no HELLO: for them, the usual choice between two links stands.
     */
    Reject secondHubWithOneId(Link newcomer, Link existing) {
        if (!(newcomer.hello() instanceof HubHello arriving)
                || !(existing.hello() instanceof HubHello held)
                || !existing.isOpen()) {
            return null;
        }
        if (arriving.hubName().equals(held.hubName())
                && Set.copyOf(arriving.linkAddresses()).equals(Set.copyOf(held.linkAddresses()))) {
            return null;
        }
        NodeId id = newcomer.peerId();
        String from = newcomer.remoteAddress() == null ? "(unknown)" : LinkAddress.format(newcomer.remoteAddress());
        String heldFrom = existing.remoteAddress() == null ? "(unknown)" : LinkAddress.format(existing.remoteAddress());
        String both = "two hubs have id " + id + ": hub '" + held.hubName() + "' (advertising "
                + addresses(held.linkAddresses())
                + ") linked to hub '" + name + "' from " + heldFrom + ", and hub '" + arriving.hubName()
                + "' (advertising "
                + addresses(arriving.linkAddresses()) + ") linking from " + from;
        boolean first = idConflicts.record(
                id,
                IdConflicts.Seen.BOTH_LINKED_HERE,
                arriving.hubName(),
                from,
                arriving.linkAddresses(),
                "the second was refused: " + both,
                System.currentTimeMillis());
        if (first) {
            log.warn(
                    "Hub id conflict: {}. Refused the second; give one of the two hubs a new id (docs/operations.md, \"Hub ids\")",
                    both);
        }
        metrics.idConflict();
        return Reject.of(RejectCode.DUPLICATE_ID, both + "; give one of them a new id");
    }

    /**
     * This hub dialled an address whose hub refused the link because a hub with this hub's id is
     * that hub itself or linked with it (its reason names it).
     */
    void dialledHubHasOurId(String address, LinkRefusedException refusal) {
        String reason = refusal.getMessage();
        IdConflicts.Seen seen =
                selfId.equals(refusal.peerId()) ? IdConflicts.Seen.WE_DIALLED : IdConflicts.Seen.REPORTED;
        boolean first = idConflicts.record(
                selfId,
                seen,
                null,
                address,
                List.of(),
                "the hub at " + address + " refused this hub's link: " + reason,
                System.currentTimeMillis());
        if (first) {
            log.warn(
                    "Hub id conflict: the hub at {} has this hub's id {} too (this hub is '{}', advertising {}, {}); it refused"
                            + " the link: {} (docs/operations.md, \"Hub ids\")",
                    address,
                    selfId,
                    name,
                    addresses(advertised),
                    idSource,
                    reason);
        } else {
            log.debug("The hub at {} still has this hub's id {}", address, selfId);
        }
        metrics.idConflict();
    }

    /** A description of a hub with this hub's id whose name or addresses are not this hub's: another hub has the id. */
    void gossipWithOurId(Link from, HubDescription description) {
        String via = from.peerId() + describeName(from.peerId());
        String both = "two hubs have id " + selfId + ": hub '" + name + "' (advertising " + addresses(advertised) + ", "
                + idSource
                + ") and hub '" + description.name() + "' (advertising " + addresses(description.linkAddresses())
                + "), whose description came through hub " + via;
        boolean first = idConflicts.record(
                selfId,
                IdConflicts.Seen.GOSSIP,
                description.name(),
                null,
                description.linkAddresses(),
                both,
                System.currentTimeMillis());
        if (first) {
            log.warn("Hub id conflict: {}. Give one of the two hubs a new id (docs/operations.md, \"Hub ids\")", both);
        }
        metrics.idConflict();
    }

    private String describeName(NodeId hub) {
        HubDescription d = directory.get(hub);
        return d == null ? "" : " ('" + d.name() + "')";
    }

    private static String addresses(List<String> list) {
        return list.isEmpty() ? "no address" : String.join(", ", list);
    }
}
