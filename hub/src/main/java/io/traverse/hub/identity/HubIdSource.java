package io.traverse.hub.identity;

import io.traverse.identity.NodeId;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;

/**
 * Where a hub's id comes from: derived from a name the operator chose, kept in a state file
 * after being generated once, or new at every start. A key pair (the id a digest of the public
 * key, kept beside it) would be one more source; nothing outside this package would change.
 */
public interface HubIdSource {

    /**
     * The id, read or made now.
     *
     * @throws IOException when a kept id cannot be read or a new one cannot be kept, naming the
     *         file and what to do; the hub must not start under another id then
     */
    Loaded load() throws IOException;

    /**
     * An id and, for the log, where it came from.
     *
     * @param report e.g. "generated new hub id X in FILE", "hub id X from FILE"
     */
    record Loaded(NodeId id, String report) {}

    /** The id derived from a hub name: the same name always gives the same id. */
    static HubIdSource derivedFrom(String hubName) {
        return new HubIdSource() {
            @Override
            public Loaded load() {
                NodeId id = idForName(hubName);
                return new Loaded(id, "hub id " + id + " derived from the name '" + hubName + "'");
            }

            @Override
            public String toString() {
                return "derived from the name '" + hubName + "'";
            }
        };
    }

    /** The id kept in this file, generated and written there at the first start. */
    static HubIdSource file(Path file) {
        return new HubIdFile(file);
    }

    /** A new random id at every start, kept nowhere: for tests and throwaway hubs. */
    static HubIdSource ephemeral() {
        return new HubIdSource() {
            @Override
            public Loaded load() {
                NodeId id = NodeId.random();
                return new Loaded(id, "new hub id " + id + " for this run only (not kept)");
            }

            @Override
            public String toString() {
                return "new at every start";
            }
        };
    }

    /**
     * The hub id for a name: the first 16 bytes of SHA-256("traverse-hub:" + name), so a hub
     * restarted under the same name keeps its id.
     */
    static NodeId idForName(String hubName) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256")
                    .digest(("traverse-hub:" + hubName).getBytes(StandardCharsets.UTF_8));
            return NodeId.fromBytes(Arrays.copyOf(digest, 16));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every Java platform", e);
        }
    }
}
