package io.traverse.hublink.transport;

import io.traverse.security.IdentityKey;
import io.traverse.security.LinkTls;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's {@link LinkTls}, made once, when it is first needed or by {@link #prepareInBackground}:
 * making it signs a certificate and loads the TLS and certificate classes (a few hundred
 * milliseconds in a fresh JVM), which a node that never links to a hub does not need, and which
 * must not hold up the node's start or its first connection.
 */
public final class LazyLinkTls implements Supplier<LinkTls> {
    private static final Logger log = LoggerFactory.getLogger(LazyLinkTls.class);

    private final IdentityKey key;
    private volatile LinkTls tls;

    public LazyLinkTls(IdentityKey key) {
        this.key = key;
    }

    /**
     * Starts making the TLS contexts on a thread of their own, so that a node about to link does
     * it while its link's event loop starts and its TCP connection is made, on another core,
     * rather than after them. A link that needs them sooner waits for this thread's result; one
     * that fails here fails again, with its error, where the link needs it.
     */
    public void prepareInBackground() {
        if (tls != null) {
            return;
        }
        Thread maker = new Thread(
                () -> {
                    try {
                        get();
                    } catch (RuntimeException e) {
                        log.debug("Making the link TLS contexts in the background failed", e);
                    }
                },
                "traverse-link-tls");
        maker.setDaemon(true);
        maker.start();
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
