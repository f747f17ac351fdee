package io.traverse.splice;

import io.traverse.identity.NodeId;
import io.traverse.identity.NodeIdentity;
import io.traverse.protocol.IdentityHandshake;
import io.traverse.protocol.ProtocolException;
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

    /** The source's side: asks for the target, checks who answered; throws unless accepted by the right node. */
    static void asSource(
            Socket socket,
            IdentityHandshake.Kind kind,
            int virtualPort,
            NodeIdentity target,
            NodeIdentity self,
            boolean hold)
            throws IOException {
        IdentityHandshake.Request request = new IdentityHandshake.Request(kind, virtualPort, target, self);
        socket.getOutputStream().write(IdentityHandshake.encode(hold ? request.held() : request));
        IdentityHandshake.Reply reply = IdentityHandshake.readReply(socket.getInputStream());
        String reason = reply.reason().isEmpty() ? "" : ": " + reply.reason();
        switch (reply.answer()) {
            case ACCEPT -> {
                if (reply.responder() == null || !reply.responder().satisfies(target)) {
                    throw new AttemptFailedException(
                            FailureScope.PATH, "the spliced connection was accepted by another node than " + target);
                }
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
