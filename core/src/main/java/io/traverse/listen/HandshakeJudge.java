package io.traverse.listen;

import io.traverse.protocol.IdentityHandshake;
import java.net.InetSocketAddress;

/** Decides what a complete, well-formed handshake request gets. Called on the handshake thread: must not block. */
public interface HandshakeJudge {
    /** The answer, its reason, and for ACCEPT the backlog in which a slot has been reserved. */
    record Verdict(IdentityHandshake.Answer answer, String reason, AcceptQueue queue) {
        public static Verdict accept(AcceptQueue queue) {
            return new Verdict(IdentityHandshake.Answer.ACCEPT, "", queue);
        }

        public static Verdict reject(IdentityHandshake.Answer answer, String reason) {
            return new Verdict(answer, reason, null);
        }
    }

    Verdict judge(InetSocketAddress remote, IdentityHandshake.Request request);
}
