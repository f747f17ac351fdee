package io.traverse.hub;

import io.netty.util.ReferenceCountUtil;
import io.traverse.hub.link.Link;
import io.traverse.hub.link.LoopBarrier;
import io.traverse.hub.registry.ConnectedNode;
import io.traverse.hub.registry.NodeRegistry;
import io.traverse.hub.relay.RelayRouter;
import io.traverse.hub.sidechannel.SideChannelRouter;
import io.traverse.identity.NodeId;
import io.traverse.wire.DataLinkSwitch;
import io.traverse.wire.LinkMessage;
import io.traverse.wire.Lookup;
import io.traverse.wire.LookupResult;
import io.traverse.wire.NameBind;
import io.traverse.wire.NameRelease;
import io.traverse.wire.NodeUpdate;
import io.traverse.wire.RejectCode;
import io.traverse.wire.Relay;
import io.traverse.wire.SideMessage;

/**
 * What a node linked here sends, on its link and its data link: checked to be the node's own and
 * allowed there, then handed to the side channel, the relay or the {@link NameService}; a new
 * identity text and the switch of relayed frames to the data link are handled here. A node that
 * breaks the protocol loses its link. State loop only.
 */
final class NodeRequests {
    private final String name;
    private final NodeRegistry registry;
    private final SideChannelRouter router;
    private final RelayRouter relayRouter;
    private final NameService names;
    private final LookupQuota lookups;
    private final DescriptionBudget budget;
    private final GossipPublisher publisher;
    /** Run when a node's relayed frames move to its data link: the next links the I/O threads use are stale. */
    private final Runnable nextLinksStale;

    NodeRequests(
            String name,
            NodeRegistry registry,
            SideChannelRouter router,
            RelayRouter relayRouter,
            NameService names,
            LookupQuota lookups,
            DescriptionBudget budget,
            GossipPublisher publisher,
            Runnable nextLinksStale) {
        this.name = name;
        this.registry = registry;
        this.router = router;
        this.relayRouter = relayRouter;
        this.names = names;
        this.lookups = lookups;
        this.budget = budget;
        this.publisher = publisher;
        this.nextLinksStale = nextLinksStale;
    }

    /** A node left: its quotas are forgotten. */
    void nodeLeft(NodeId node) {
        lookups.forget(node);
    }

    /** A message on a node's data link. */
    void fromDataLink(ConnectedNode node, Link link, LinkMessage message) {
        if (message instanceof Relay relay && !link.carriesRelays()) {
            relay.release();
            HubCore.protocolError(
                    link, "a relay frame on the data link of node " + node.id() + " before its DATA_LINK_SWITCH");
        } else if (message instanceof Relay relay) {
            if (!relay.source().equals(node.id())) {
                relay.release();
                HubCore.protocolError(
                        link,
                        "a relay frame " + relay.direction() + " from node " + relay.source()
                                + " on the data link of node " + node.id());
                return;
            }
            relayRouter.fromLocalNode(relay, link);
        } else {
            ReferenceCountUtil.release(message);
            HubCore.protocolError(link, message.type() + " on a data link (it carries RELAY frames only)");
        }
    }

    /** A message on a node's link. */
    void fromNode(ConnectedNode node, LinkMessage message) {
        if (message instanceof SideMessage side) {
            if (!side.from().equals(node.id())) {
                HubCore.protocolError(
                        node.link(), "a side message from node " + side.from() + " on the link of node " + node.id());
                return;
            }
            router.fromLocalNode(node.link(), side, System.nanoTime());
        } else if (message instanceof Relay relay) {
            if (!relay.source().equals(node.id())) {
                relay.release();
                HubCore.protocolError(
                        node.link(),
                        "a relay frame " + relay.direction() + " from node " + relay.source() + " on the link of node "
                                + node.id());
                return;
            }
            if (!node.link().carriesRelays()) {
                relay.release();
                HubCore.protocolError(
                        node.link(),
                        "a relay frame on the link of node " + node.id() + " after its DATA_LINK_SWITCH"
                                + " (relayed frames travel on its data link)");
                return;
            }
            relayRouter.fromLocalNode(relay, node.link());
        } else if (message instanceof Lookup lookup) {
            LookupResult refused = lookups.refusal(node.id(), lookup, System.nanoTime());
            node.link().send(refused != null ? refused : names.answer(lookup));
        } else if (message instanceof NameBind bind) {
            node.link().send(names.bind(node, bind));
        } else if (message instanceof NameRelease release) {
            node.link().send(names.release(node, release));
        } else if (message instanceof NodeUpdate update) {
            updateIdentity(node, update);
        } else if (message instanceof DataLinkSwitch) {
            switchToDataLink(node);
        } else {
            HubCore.protocolError(node.link(), message.type() + " is not something a node sends");
        }
    }

    /**
     * The node's DATA_LINK_SWITCH: it sends its RELAY frames on its data link from now on, and so
     * does this hub, without reordering any connection's frames (docs/protocol.md, "Data links").
     * Node to hub: the data link is read once the frames the node sent on its link before the
     * switch have been sent on (their sending is queued on the link's loop, and so is this).
     * Hub to node: the switch goes back on the link once every I/O loop has finished what it was
     * doing, so every frame routed to the link before the change is queued there before it.
     */
    private void switchToDataLink(ConnectedNode node) {
        Link control = node.link();
        Link data = node.dataLink();
        if (node.relaysOnDataLink() || data == null) {
            HubCore.protocolError(
                    control,
                    "DATA_LINK_SWITCH from node " + node.id()
                            + (node.relaysOnDataLink() ? " twice" : " without a data link"));
            return;
        }
        if (!data.isOpen()) {
            return; // closing: the node's link goes with it
        }
        node.relayOnDataLink();
        nextLinksStale.run();
        control.execute(() -> {
            data.carriesRelays(true);
            data.releaseReadHold();
        });
        LoopBarrier.thenRun(
                control.channel().eventLoop().parent(),
                () -> control.execute(() -> control.send(new DataLinkSwitch())));
    }

    private void updateIdentity(ConnectedNode node, NodeUpdate update) {
        String problem = LinkAdmission.identityProblem(node.id(), update.identityText());
        if (problem != null) {
            HubCore.protocolError(node.link(), problem);
            return;
        }
        if (!budget.takeIdentityChange(node.id(), node.identityText(), update.identityText())) {
            node.link().close(RejectCode.LIMIT, "hub " + name + " cannot describe this identity in its gossip");
            return;
        }
        registry.updateIdentity(node, update.identityText());
        publisher.ownChanged();
    }
}
