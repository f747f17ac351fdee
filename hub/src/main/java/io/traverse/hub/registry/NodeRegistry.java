package io.traverse.hub.registry;

import io.traverse.hub.link.Link;
import io.traverse.identity.NodeId;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The nodes connected to this hub, at most one live link per node id, and the names they hold
 * here. Limits: nodes per hub, names per node. State-loop only.
 */
public final class NodeRegistry {
    private final int maxNodes;
    private final int maxNamesPerNode;
    private final Map<NodeId, ConnectedNode> nodes = new LinkedHashMap<>();
    private final Map<String, ConnectedNode> nameOwners = new LinkedHashMap<>();

    public NodeRegistry(int maxNodes, int maxNamesPerNode) {
        this.maxNodes = maxNodes;
        this.maxNamesPerNode = maxNamesPerNode;
    }

    public ConnectedNode get(NodeId id) {
        return nodes.get(id);
    }

    public boolean isFull() {
        return nodes.size() >= maxNodes;
    }

    /** @throws IllegalStateException if the id is taken: check {@link #get} first */
    public ConnectedNode add(NodeId id, Link link, String identityText) {
        if (nodes.containsKey(id)) {
            throw new IllegalStateException("node " + id + " is already connected");
        }
        ConnectedNode node = new ConnectedNode(id, link, identityText);
        nodes.put(id, node);
        return node;
    }

    /** Removes the node if this link is still its link, with all its names. */
    public ConnectedNode remove(Link link) {
        ConnectedNode node = nodes.get(link.peerId());
        if (node == null || node.link() != link) {
            return null;
        }
        nodes.remove(node.id());
        for (String name : node.names().keySet()) {
            nameOwners.remove(name);
        }
        return node;
    }

    public void updateIdentity(ConnectedNode node, String identityText) {
        node.identityText(identityText);
    }

    /** The local holder of a canonical name, or null. */
    public ConnectedNode ownerOf(String name) {
        return nameOwners.get(name);
    }

    public boolean atNameLimit(ConnectedNode node) {
        return node.names().size() >= maxNamesPerNode;
    }

    public int maxNamesPerNode() {
        return maxNamesPerNode;
    }

    public void bind(ConnectedNode node, String name, int virtualPort) {
        node.bind(name, virtualPort);
        nameOwners.put(name, node);
    }

    public boolean release(ConnectedNode node, String name) {
        if (nameOwners.get(name) != node) {
            return false;
        }
        nameOwners.remove(name);
        return node.release(name);
    }

    public Collection<ConnectedNode> nodes() {
        return Collections.unmodifiableCollection(nodes.values());
    }

    public int size() {
        return nodes.size();
    }
}
