package io.traverse.hub;

import io.traverse.hub.registry.ConnectedNode;
import io.traverse.identity.NodeId;
import io.traverse.wire.LinkLimits;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * How many bytes this hub's own description takes, by an estimate kept up to date per node,
 * identity and name: a hub refuses nodes and names with LIMIT rather than gossip a description
 * that no longer fits a frame. State loop only.
 */
final class DescriptionBudget {
    /** Own description size allowed, leaving room in a 1 MiB frame. */
    static final int MAX_BYTES = LinkLimits.MAX_FRAME_AFTER_AUTH - 64 * 1024;

    private long bytes;

    DescriptionBudget(String name, List<String> advertised) {
        this.bytes = 64
                + name.length()
                + advertised.stream().mapToInt(a -> a.length() + 2).sum();
    }

    /** Counts a node in if it fits; false (and nothing counted) if it does not. */
    boolean takeNode(NodeId id, String identityText) {
        return take(nodeBytes(id, identityText));
    }

    /** Counts a name in if it fits; false (and nothing counted) if it does not. */
    boolean takeName(String name, NodeId id) {
        return take(nameBytes(name, id));
    }

    /** Counts a node's new identity text instead of its old one if it fits; false (and nothing changed) if not. */
    boolean takeIdentityChange(NodeId id, String oldIdentityText, String newIdentityText) {
        return take(nodeBytes(id, newIdentityText) - nodeBytes(id, oldIdentityText));
    }

    void releaseName(String name, NodeId id) {
        bytes -= nameBytes(name, id);
    }

    /** A node left: it and its names no longer count. */
    void releaseNode(ConnectedNode node) {
        bytes -= nodeBytes(node.id(), node.identityText());
        for (String n : node.names().keySet()) {
            bytes -= nameBytes(n, node.id());
        }
    }

    private boolean take(long more) {
        if (bytes + more > MAX_BYTES) {
            return false;
        }
        bytes += more;
        return true;
    }

    private static long nodeBytes(NodeId id, String identityText) {
        return 3 + id.toString().length() + identityText.getBytes(StandardCharsets.UTF_8).length;
    }

    private static long nameBytes(String name, NodeId id) {
        return 5 + name.length() + id.toString().length();
    }
}
