package io.traverse.hub.identity;

import io.traverse.identity.NodeId;
import io.traverse.security.IdentityKey;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Where a hub's key comes from, and with it the hub's id (a digest of the public key): a key file
 * kept and locked while the hub runs, or a new key at every start.
 */
public interface HubKeySource {

    /**
     * The key, read or made now.
     *
     * @throws IOException when a kept key cannot be read, a new one cannot be kept, or another hub
     *         runs with it, naming the file and what to do; the hub must not start then
     */
    Loaded load() throws IOException;

    /**
     * A key, for the log where it came from, and what to release when the hub closes (the lock
     * on a key file).
     */
    record Loaded(IdentityKey key, String report, AutoCloseable release) {
        public NodeId id() {
            return key.id();
        }
    }

    /** The key kept in this file, generated and written there at the first start, locked while the hub runs. */
    static HubKeySource file(Path file) {
        return new HubKeyFile(file);
    }

    /** A new key (and id) at every start, kept nowhere: for tests and throwaway hubs. */
    static HubKeySource ephemeral() {
        return new HubKeySource() {
            @Override
            public Loaded load() {
                IdentityKey key = IdentityKey.generate();
                return new Loaded(key, "new hub key, id " + key.id() + ", for this run only (not kept)", () -> {});
            }

            @Override
            public String toString() {
                return "new at every start";
            }
        };
    }
}
