package io.traverse.hub.registry;

import io.traverse.hub.link.Link;
import io.traverse.identity.NodeId;
import java.net.InetSocketAddress;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A node with a live link to this hub: its id, identity text (as it last told us), the address
 * and port its link came from, and the names it holds here. State-loop only.
 */
public final class ConnectedNode {
    private final NodeId id;
    private final Link link;
    private String identityText;
    private Link dataLink;
    private final Map<String, Integer> names = new LinkedHashMap<>();

    ConnectedNode(NodeId id, Link link, String identityText) {
        this.id = id;
        this.link = link;
        this.identityText = identityText;
    }

    public NodeId id() {
        return id;
    }

    public Link link() {
        return link;
    }

    /** The node's data link, or null: where RELAY frames to the node go. */
    public Link dataLink() {
        return dataLink;
    }

    public void dataLink(Link link) {
        this.dataLink = link;
    }

    /** True once the node switched to its data link (DATA_LINK_SWITCH on its link) and this hub did too. */
    public boolean relaysOnDataLink() {
        return !link.carriesRelays();
    }

    /** RELAY frames to and from this node travel on its data link from now on, no longer on its link. */
    public void relayOnDataLink() {
        link.carriesRelays(false);
    }

    /** The link RELAY frames to this node go out on: its data link once switched and while open, else its link. */
    public Link relayLink() {
        Link d = dataLink;
        return d != null && !link.carriesRelays() && d.isOpen() ? d : link;
    }

    public String identityText() {
        return identityText;
    }

    void identityText(String text) {
        this.identityText = text;
    }

    /** Where the node's link came from as seen by this hub: the node's external endpoint when it sits behind NAT. */
    public InetSocketAddress observedAddress() {
        return link.remoteAddress();
    }

    /** Names held, with their virtual ports, in the order bound. */
    public Map<String, Integer> names() {
        return Collections.unmodifiableMap(names);
    }

    void bind(String name, int virtualPort) {
        names.put(name, virtualPort);
    }

    boolean release(String name) {
        return names.remove(name) != null;
    }
}
