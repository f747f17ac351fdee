package io.traverse.hublink.transport;

import io.traverse.security.IdentityKey;
import io.traverse.security.LinkTls;
import java.util.function.Supplier;

/**
 * A node's {@link LinkTls}, made when a link is first dialled rather than at node start: making
 * it signs a certificate and loads the TLS and certificate classes, which a node that never links
 * to a hub does not need, and which would otherwise delay the node's first connection.
 */
public final class LazyLinkTls implements Supplier<LinkTls> {
    private final IdentityKey key;
    private volatile LinkTls tls;

    public LazyLinkTls(IdentityKey key) {
        this.key = key;
    }

    @Override
    public LinkTls get() {
        LinkTls made = tls;
        if (made == null) {
            synchronized (this) {
                made = tls;
                if (made == null) {
                    made = LinkTls.of(key);
                    tls = made;
                }
            }
        }
        return made;
    }
}
