package io.traverse.wire;

import io.traverse.identity.NodeId;

/** The dialer's first frame: who it is and its nonce. The acceptor answers CHALLENGE or REJECT. */
public sealed interface Hello extends LinkMessage permits NodeHello, HubHello {
    LinkRole role();

    /** The id of the dialing node or hub. */
    NodeId senderId();

    /** 32 random bytes of the dialer. */
    byte[] clientNonce();

    @Override
    default LinkMessageType type() {
        return LinkMessageType.HELLO;
    }
}
