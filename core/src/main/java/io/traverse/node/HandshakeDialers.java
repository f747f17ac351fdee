package io.traverse.node;

import io.traverse.identity.NodeIdentity;
import io.traverse.spi.AttemptFailedException;
import io.traverse.spi.ConnectRequest;
import io.traverse.spi.ConnectionAttempt;
import io.traverse.spi.FailureScope;
import io.traverse.spi.HandshakeDialer;
import io.traverse.spi.HandshakeDialerProvider;
import java.util.Iterator;
import java.util.ServiceLoader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Finds the node's {@link HandshakeDialer} on the class path; without one, dialing fails with a line that says why. */
final class HandshakeDialers {
    private static final Logger log = LoggerFactory.getLogger(HandshakeDialers.class);

    private HandshakeDialers() {}

    static HandshakeDialer load(HandshakeDialerProvider.Setup setup) {
        Iterator<HandshakeDialerProvider> providers = ServiceLoader.load(
                        HandshakeDialerProvider.class, HandshakeDialers.class.getClassLoader())
                .iterator();
        if (!providers.hasNext()) {
            log.debug("No handshake dialer is on the class path: direct and reverse connections cannot be made");
            return new Missing();
        }
        HandshakeDialerProvider provider = providers.next();
        if (providers.hasNext()) {
            log.warn(
                    "Two handshake dialers are on the class path: {} and {}; using the first",
                    provider.getClass().getName(),
                    providers.next().getClass().getName());
        }
        return provider.create(setup);
    }

    /** What a node without traverse-direct dials with: nothing, said as a module failure so the race goes on. */
    private static final class Missing implements HandshakeDialer {
        private static final String WHY = "no handshake dialer is on the class path (it comes with traverse-direct)";

        @Override
        public ConnectionAttempt attempt(ConnectRequest request) throws AttemptFailedException {
            throw AttemptFailedException.notApplicable(FailureScope.MODULE, WHY);
        }

        @Override
        public ConnectionAttempt dialBack(ConnectRequest request, byte[] reverseToken, BeforeHandshake beforeHandshake)
                throws AttemptFailedException {
            throw AttemptFailedException.notApplicable(FailureScope.MODULE, WHY);
        }

        @Override
        public boolean onOtherPrivateNetworks(NodeIdentity target) {
            return false;
        }
    }
}
