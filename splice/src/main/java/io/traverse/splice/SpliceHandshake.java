package io.traverse.splice;

import io.traverse.connect.KernelTls;
import io.traverse.identity.NodeId;
import io.traverse.identity.NodeIdentity;
import io.traverse.protocol.HandshakeProof;
import io.traverse.protocol.IdentityHandshake;
import io.traverse.protocol.ProtocolException;
import io.traverse.security.PeerSessions;
import io.traverse.spi.AttemptFailedException;
import io.traverse.spi.FailureScope;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.ByteBuffer;

/**
 * The identity handshake on a spliced connection. Neither side accepted it, so the roles are
 * agreed instead: the source (which asked for the splice) speaks as a dialler, the target answers
 * as its listener would, with the same messages as on any direct connection (docs/protocol.md).
 */
final class SpliceHandshake {
    /** What the target makes of a request on a spliced connection. */
    record Checked(IdentityHandshake.Request request, IdentityHandshake.Answer answer, String reason) {}

    private SpliceHandshake() {}

    /**
     * The source's side: asks for the target, checks who answered; throws unless accepted by the
     * right node. With {@code sessions} (not for a PROBE) the request proves keys: the target must
     * prove the key of its id, and the source's Finished (after a full agreement; empty when
     * resumed) goes out at once, or, when held, is returned to go out right after CONFIRM.
     *
     * With {@code askTls} (not for a PROBE) the request asks for TLS; an ACCEPT that agrees, or that
     * imposes TLS (its node runs {@code traverse.encrypt=all}), records the socket in {@code tls}.
     *
     * @return the Finished still to send after CONFIRM (held), else null
     */
    static byte[] asSource(
            Socket socket,
            IdentityHandshake.Kind kind,
            int virtualPort,
            NodeIdentity target,
            NodeIdentity self,
            boolean hold,
            PeerSessions sessions,
            KernelTls tls,
            boolean wantTls)
            throws IOException {
        IdentityHandshake.Request plain = new IdentityHandshake.Request(kind, virtualPort, target, self);
        boolean askTls = wantTls
                && tls != null
                && kind != IdentityHandshake.Kind.PROBE
                && target.id().isPresent()
                && self.id().isPresent();
        IdentityHandshake.Request request = askTls ? plain.withTls() : plain;
        byte[] encoded = IdentityHandshake.encode(hold ? request.held() : request);
        HandshakeProof.Client proof = sessions != null
                        && kind != IdentityHandshake.Kind.PROBE
                        && target.id().isPresent()
                ? HandshakeProof.offer(sessions, target.id().get(), encoded)
                : null;
        socket.getOutputStream().write(proof == null ? encoded : proof.request());
        IdentityHandshake.Reply reply = IdentityHandshake.readReply(socket.getInputStream());
        String reason = reply.reason().isEmpty() ? "" : ": " + reply.reason();
        switch (reply.answer()) {
            case ACCEPT -> {
                if (askTls && !reply.tls()) {
                    throw new AttemptFailedException(
                            FailureScope.PATH,
                            "node " + target + " did not agree to TLS on the spliced connection, which"
                                    + " traverse.encrypt=all on this node needs");
                }
                if (reply.tls()) {
                    if (tls == null || target.id().isEmpty()) {
                        throw new AttemptFailedException(
                                FailureScope.PATH,
                                "node " + target + " runs spliced connections only in TLS, which this node cannot"
                                        + " bind to its id here");
                    }
                    tls.agreed(socket, target.id().get());
                }
                if (proof != null) {
                    byte[] finished = finish(proof, reply);
                    if (hold) {
                        return finished;
                    }
                    if (finished.length > 0) { // none when resumed
                        socket.getOutputStream().write(finished);
                    }
                    return null;
                }
                if (reply.responder() == null || !reply.responder().satisfies(target)) {
                    throw new AttemptFailedException(
                            FailureScope.PATH, "the spliced connection was accepted by another node than " + target);
                }
                return null;
            }
            case UNKNOWN_SESSION -> {
                if (proof == null) {
                    throw new AttemptFailedException(
                            FailureScope.MODULE,
                            "the spliced connection was answered UNKNOWN_SESSION without a key proof");
                }
                sessions.forget(proof.target()); // the next offer to it is a full agreement
                throw new AttemptFailedException(
                        FailureScope.PATH,
                        "node " + proof.target() + " no longer keeps the key agreement resumed with it;"
                                + " the next attempt agrees afresh" + reason);
            }
            case PORT_NOT_FOUND ->
                throw new AttemptFailedException(
                        FailureScope.TARGET,
                        "Connection refused: node " + target + " has no virtual port " + virtualPort + reason);
            case OVERLOAD ->
                throw new AttemptFailedException(
                        FailureScope.TARGET, "Connection refused: node " + target + " is overloaded" + reason);
            case WRONG_NODE ->
                throw new AttemptFailedException(
                        FailureScope.PATH, "the spliced connection reached another node" + reason);
            default ->
                throw new AttemptFailedException(
                        FailureScope.MODULE, "the spliced connection was refused (" + reply.answer() + ")" + reason);
        }
    }

    /** Checks the target's key answer; the Finished to send. */
    private static byte[] finish(HandshakeProof.Client proof, IdentityHandshake.Reply reply) throws IOException {
        if (reply.keyAnswer() == null) {
            throw new AttemptFailedException(
                    FailureScope.PATH,
                    "the spliced connection was accepted without a proof of node " + proof.target() + "'s key");
        }
        try {
            return proof.complete(reply.keyAnswer());
        } catch (PeerSessions.SealFailure e) {
            throw new AttemptFailedException(
                    FailureScope.PATH,
                    "the spliced connection did not prove the key of node " + proof.target() + ": " + e.getMessage());
        }
    }

    /**
     * The target's side, first half: reads the request (exactly, never a byte more) and judges it
     * against what the side channel said: the authenticated sender, the virtual port, probe or not.
     */
    static Checked readRequest(Socket socket, NodeIdentity self, NodeId sender, int virtualPort, boolean probe)
            throws IOException {
        InputStream in = socket.getInputStream();
        ByteBuffer header = ByteBuffer.wrap(readExactly(in, IdentityHandshake.HEADER_LENGTH));
        int length = IdentityHandshake.checkHeader(header);
        IdentityHandshake.Request request = IdentityHandshake.decodeRequest(
                IdentityHandshake.code(header), ByteBuffer.wrap(readExactly(in, length)));
        IdentityHandshake.Kind expectedKind = probe ? IdentityHandshake.Kind.PROBE : IdentityHandshake.Kind.CONNECT;
        if (request.kind() != expectedKind || request.virtualPort() != virtualPort) {
            return new Checked(
                    request,
                    IdentityHandshake.Answer.PROTOCOL_ERROR,
                    "a " + request.kind() + " for virtual port " + request.virtualPort() + " on a splice agreed as "
                            + expectedKind + " for " + virtualPort);
        }
        if (request.source() == null
                || request.source().id().isEmpty()
                || !request.source().id().get().equals(sender)) {
            return new Checked(
                    request, IdentityHandshake.Answer.REFUSED, "the spliced connection was agreed with node " + sender);
        }
        if (!self.satisfies(request.expectedTarget())) {
            return new Checked(request, IdentityHandshake.Answer.WRONG_NODE, "");
        }
        return new Checked(request, IdentityHandshake.Answer.ACCEPT, "");
    }

    /**
     * The target's side, for a CONNECT when this node has sessions: the key proof's answer, or the
     * refusal (no proof, a failed one, a session this node does not keep) as a Checked.
     */
    static Object answerProof(PeerSessions sessions, NodeId sender, IdentityHandshake.Request request) {
        if (!request.provesKey()) {
            return new Checked(
                    request,
                    IdentityHandshake.Answer.REFUSED,
                    "node " + sessions.localId() + " accepts a spliced connection only with a key proof; node " + sender
                            + " sent none");
        }
        try {
            return HandshakeProof.answer(sessions, sender, request);
        } catch (PeerSessions.SealFailure e) {
            return new Checked(
                    request,
                    e.unknownSession() ? IdentityHandshake.Answer.UNKNOWN_SESSION : IdentityHandshake.Answer.REFUSED,
                    "node " + sessions.localId() + " refused the key proof: " + e.getMessage());
        }
    }

    /** The target's side: the ACCEPT that carries the key answer, agreeing to TLS if asked. */
    static void acceptWithProof(Socket socket, HandshakeProof.Accepted proof, boolean tls) throws IOException {
        socket.getOutputStream().write(IdentityHandshake.encodeAccept(false, proof.answer(), tls));
    }

    /** The target's side: the ACCEPT of a request without a key proof, agreeing to TLS if asked. */
    static void accept(Socket socket, NodeIdentity self, boolean tls) throws IOException {
        socket.getOutputStream()
                .write(IdentityHandshake.encode(
                        new IdentityHandshake.Reply(IdentityHandshake.Answer.ACCEPT, self, "", false, null, tls)));
    }

    /** The target's side, after the ACCEPT (and CONFIRM): true if the source's Finished is right. */
    static boolean awaitFinished(Socket socket, HandshakeProof.Accepted proof) throws IOException {
        byte[] finished = socket.getInputStream().readNBytes(HandshakeProof.FINISHED_LENGTH);
        if (finished.length != HandshakeProof.FINISHED_LENGTH) {
            throw new EOFException("spliced connection closed before its key proof");
        }
        return proof.checkFinished(finished);
    }

    /**
     * The target's side, after an ACCEPT of a held request: true once the source confirms (it
     * took this connection), false if it closes it instead (another attempt won).
     */
    static boolean awaitConfirm(Socket socket) throws IOException {
        int b = socket.getInputStream().read();
        if (b < 0) {
            return false;
        }
        if (b != IdentityHandshake.CONFIRM) {
            throw new ProtocolException("sent " + b + " instead of confirming its held connection");
        }
        return true;
    }

    /** The target's side, second half: the verdict, with this node's identity. */
    static void answer(Socket socket, NodeIdentity self, IdentityHandshake.Answer answer, String reason)
            throws IOException {
        socket.getOutputStream().write(IdentityHandshake.encode(new IdentityHandshake.Reply(answer, self, reason)));
    }

    private static byte[] readExactly(InputStream in, int length) throws IOException {
        byte[] bytes = in.readNBytes(length);
        if (bytes.length != length) {
            throw new EOFException("spliced connection closed during the handshake");
        }
        return bytes;
    }
}
