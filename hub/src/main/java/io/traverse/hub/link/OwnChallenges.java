package io.traverse.hub.link;

import java.util.HexFormat;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The CHALLENGEs this hub has sent in answer to a hub HELLO that carries this hub's own id, by
 * their server nonce. A dialler that receives a CHALLENGE with its own id looks its nonce up
 * here: found, the address it dialled leads back to this very hub; not found, another hub has
 * this hub's id. No wire change is needed: the nonce is recorded before the CHALLENGE is
 * written, so it is here by the time the dialling side reads it. Holds one entry per such
 * handshake in progress, removed when that handshake ends.
 */
public final class OwnChallenges {
    private final Set<String> nonces = ConcurrentHashMap.newKeySet();

    void issued(byte[] serverNonce) {
        nonces.add(HexFormat.of().formatHex(serverNonce));
    }

    boolean isOurs(byte[] serverNonce) {
        return nonces.contains(HexFormat.of().formatHex(serverNonce));
    }

    void forget(byte[] serverNonce) {
        nonces.remove(HexFormat.of().formatHex(serverNonce));
    }
}
