package io.traverse.direct;

import io.traverse.connect.SocketAttempt;
import io.traverse.identity.NodeIdentity;
import io.traverse.protocol.HandshakeProof;
import io.traverse.protocol.IdentityHandshake;
import io.traverse.security.PeerSessions;
import io.traverse.spi.AttemptFailedException;
import io.traverse.spi.ConnectOptions;
import io.traverse.spi.ConnectRequest;
import io.traverse.spi.FailureScope;
import io.traverse.spi.HandshakeDialer.BeforeHandshake;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Arrays;

/** TCP connect, then the identity handshake on the same socket. */
class HandshakeAttempt extends SocketAttempt {
    private final ConnectRequest request;
    private final byte[] handshake;
    private final WorkingAddresses workingAddresses;
    /** Run when the handshake was accepted (a plain address a tunnel also leads to: that tunnel no longer goes first); may be null. */
    Runnable onSuccess;
    /** Run once TCP is up, before the handshake goes out; may be null. */
    BeforeHandshake beforeHandshake;
    /** How the handshake proves keys (CONNECT and REVERSE); null: it proves none. */
    KeyProver keyProof;
    /** Where an ACCEPT that agreed on TLS records the socket; null: the request asks for none. */
    io.traverse.connect.KernelTls kernelTls;
    /** The offer {@link #beforeConnect} made for {@link #requestBytes()} as it was then ({@link #earlyBytes}), or null. */
    private HandshakeProof.Client earlyProof;

    private byte[] earlyBytes;

    /** How long a held attempt that got through waits at least for an unheld rival's answer (Rivals#heldMayWin). */
    private static final long MIN_GIVE_WAY_WAIT_NANOS = 20_000_000;

    /** The listener holds the connection until {@link #confirm()}: a rival attempt ran when the request went out. */
    private volatile boolean held;
    /** The key proof's Finished, sent right after CONFIRM by {@link #confirm()} when held; else null. */
    private volatile byte[] finished;

    HandshakeAttempt(
            InetSocketAddress address,
            ConnectRequest request,
            ConnectOptions options,
            byte[] handshake,
            WorkingAddresses workingAddresses) {
        super(address, request.deadline(), options);
        this.request = request;
        this.handshake = handshake;
        this.workingAddresses = workingAddresses;
    }

    @Override
    protected void afterConnect(Socket socket) throws IOException {
        if (beforeHandshake != null) {
            beforeHandshake.run();
        }
        if (workingAddresses == null) {
            exchangeHandshake(socket); // a tunnel's entrance: not one of the target's addresses
            return;
        }
        try {
            exchangeHandshake(socket);
            workingAddresses.worked(request.target(), address);
            if (onSuccess != null) {
                onSuccess.run();
            }
        } catch (IOException e) {
            if (!isCancelled()) { // losing the race says nothing against the address
                workingAddresses.failed(request.target(), address);
            }
            throw e;
        }
    }

    @Override
    protected String timeoutAfterConnect() {
        // TCP got through but nobody answered: a firewall holding the connection, or a stuck peer.
        return "Connect timed out waiting for the handshake answer";
    }

    @Override
    public void confirm() throws IOException {
        Socket s = socket();
        if (held && s != null) {
            byte[] proof = finished;
            if (proof == null) {
                s.getOutputStream().write(IdentityHandshake.CONFIRM); // raw, before any in-band framing
            } else {
                byte[] out = new byte[1 + proof.length];
                out[0] = (byte) IdentityHandshake.CONFIRM;
                System.arraycopy(proof, 0, out, 1, proof.length);
                s.getOutputStream().write(out); // one write: CONFIRM, then the Finished, both raw
            }
        }
    }

    /**
     * The key proof's offer, made before the TCP connect so that the request goes out the moment
     * the connection stands: a listener serves a request that is there at once on its accepting
     * thread, and one that comes later only through its selector (a wake-up and two mode switches).
     */
    @Override
    protected void beforeConnect() {
        byte[] bytes = requestBytes();
        if (keyProof != null && !isProbe(bytes)) {
            earlyBytes = bytes;
            earlyProof = keyProof.offer(bytes);
        }
    }

    /** The request as this attempt sends it: the shared bytes, with the hold bit on a held CONNECT. */
    private byte[] requestBytes() {
        if (!isConnect() || request.probe() || !request.holdUntilConfirmed()) {
            return handshake;
        }
        byte[] bytes = handshake.clone(); // the shared bytes stay those of an unheld CONNECT
        bytes[5] |= (byte) IdentityHandshake.HOLD_UNTIL_CONFIRMED;
        return bytes;
    }

    private void exchangeHandshake(Socket socket) throws IOException {
        if (!isConnect() || request.probe()) {
            exchange(socket, handshake);
            return;
        }
        if (request.holdUntilConfirmed()) {
            byte[] bytes = requestBytes();
            held = true;
            long asked = System.nanoTime();
            exchange(socket, bytes);
            long roundTrip = System.nanoTime() - asked;
            if (!request.rivals().heldMayWin(request.deadline(), Math.max(MIN_GIVE_WAY_WAIT_NANOS, 4 * roundTrip))) {
                throw new AttemptFailedException(
                        FailureScope.PATH, where() + ": gave way to an attempt the node had accepted unheld");
            }
            return;
        }
        request.rivals().unheld(() -> {
            exchange(socket, handshake);
            return null;
        });
    }

    private void exchange(Socket socket, byte[] bytes) throws IOException {
        HandshakeProof.Client early = earlyProof;
        // The early offer serves only the bytes it was made for: whether a CONNECT is held is decided
        // again now (a rival may have started meanwhile), and the offer is bound to the hold bit.
        HandshakeProof.Client proof = early != null && Arrays.equals(earlyBytes, bytes)
                ? early
                : keyProof != null && !isProbe(bytes) ? keyProof.offer(bytes) : null;
        socket.getOutputStream().write(proof == null ? bytes : proof.request());
        IdentityHandshake.Reply reply =
                IdentityHandshake.readReply(socket.getInputStream(), proof == null ? 0 : proof.acceptLength());
        NodeIdentity target = request.target();
        String reason = reply.reason().isEmpty() ? "" : ": " + reply.reason();
        switch (reply.answer()) {
            case ACCEPT -> {
                // No responder: the listener checked that it is the node asked for (encodeAccept).
                if (reply.responder() != null && !reply.responder().satisfies(target)) {
                    throw new AttemptFailedException(
                            FailureScope.PATH,
                            where() + ": accepted by node " + describe(reply.responder())
                                    + ", which is not the node asked for");
                }
                if (asksInBandEndOfStream() && !reply.inBandEndOfStream()) {
                    throw new AttemptFailedException(
                            FailureScope.PATH,
                            where() + ": the node did not agree to in-band end-of-stream, which a tunnel needs");
                }
                if (proof != null) {
                    finish(socket, proof, reply, (bytes[5] & IdentityHandshake.HOLD_UNTIL_CONFIRMED) != 0);
                }
                agreeTls(socket, (bytes[5] & IdentityHandshake.TLS) != 0, reply);
            }
            case UNKNOWN_SESSION -> {
                if (keyProof == null) {
                    throw new AttemptFailedException(
                            FailureScope.MODULE,
                            where() + ": answered UNKNOWN_SESSION to a request without a key proof");
                }
                // Its node restarted with its key and lost the session: the next offer to it is full.
                keyProof.forget();
                throw new AttemptFailedException(
                        FailureScope.PATH,
                        where() + ": node " + keyProof.target()
                                + " no longer keeps the key agreement resumed with it; the next attempt agrees afresh"
                                + reason);
            }
            case WRONG_NODE ->
                throw new AttemptFailedException(
                        FailureScope.PATH,
                        where() + ": reached node " + describe(reply.responder()) + ", not " + describe(target));
            case REFUSED -> throw new AttemptFailedException(FailureScope.PATH, where() + ": refused" + reason);
            case PORT_NOT_FOUND ->
                throw new AttemptFailedException(
                        FailureScope.TARGET,
                        "Connection refused: node " + describe(target) + " has no virtual port " + request.virtualPort()
                                + reason);
            case OVERLOAD ->
                throw new AttemptFailedException(
                        FailureScope.TARGET,
                        "Connection refused: node " + describe(target) + " is overloaded" + reason);
            case PROTOCOL_ERROR ->
                throw new AttemptFailedException(FailureScope.MODULE, where() + ": handshake not understood" + reason);
            default -> throw new IllegalStateException("unhandled answer " + reply.answer());
        }
    }

    /**
     * Checks that the listener proved the key of the node expected and sends the Finished of a full
     * agreement (right away, or with CONFIRM when held).
     */
    private void finish(Socket socket, HandshakeProof.Client proof, IdentityHandshake.Reply reply, boolean hold)
            throws IOException {
        if (reply.keyAnswer() == null) {
            throw new AttemptFailedException(
                    FailureScope.PATH, where() + ": node " + proof.target() + " accepted without proving its key");
        }
        byte[] done;
        try {
            done = proof.complete(reply.keyAnswer());
        } catch (PeerSessions.SealFailure e) {
            throw new AttemptFailedException(
                    FailureScope.PATH,
                    where() + ": the listener did not prove the key of node " + proof.target() + ": " + e.getMessage());
        }
        if (hold) {
            finished = done;
        } else if (done.length > 0) { // none when resumed
            socket.getOutputStream().write(done);
        }
    }

    /**
     * A request that asked for TLS needs an ACCEPT that agrees; an ACCEPT may also impose TLS on a
     * request that did not ask (its node runs {@code traverse.encrypt=all}). Either way the socket
     * is recorded for the node to wrap, bound to the target's id.
     */
    private void agreeTls(Socket socket, boolean asked, IdentityHandshake.Reply reply) throws IOException {
        if (asked && !reply.tls()) {
            throw new AttemptFailedException(
                    FailureScope.PATH,
                    where() + ": node " + describe(request.target())
                            + " did not agree to TLS, which traverse.encrypt=all on this node needs");
        }
        if (!reply.tls()) {
            return;
        }
        if (kernelTls == null || request.target().id().isEmpty()) {
            throw new AttemptFailedException(
                    FailureScope.PATH,
                    where() + ": node " + describe(request.target()) + " runs its connections only in TLS"
                            + (kernelTls == null
                                    ? ", which this dialer cannot run"
                                    : ", which needs the node's id to bind TLS to; this connect names an address only"));
        }
        kernelTls.agreed(socket, request.target().id().get());
    }

    /** The kind of a request's bytes, without its flags. */
    private static int kindOf(byte[] bytes) {
        return (bytes[5] & 0xff)
                & ~(IdentityHandshake.IN_BAND_END_OF_STREAM
                        | IdentityHandshake.HOLD_UNTIL_CONFIRMED
                        | IdentityHandshake.KEY_PROOF
                        | IdentityHandshake.TLS);
    }

    private static boolean isProbe(byte[] bytes) {
        return kindOf(bytes) == IdentityHandshake.Kind.PROBE.code;
    }

    private boolean isConnect() {
        // A tunnelled CONNECT (top bit set) is a CONNECT too, and is held like any other.
        return kindOf(handshake) == IdentityHandshake.Kind.CONNECT.code;
    }

    /** A tunnelled CONNECT or REVERSE (a PROBE's answer is the last thing read: nothing to agree on). */
    private boolean asksInBandEndOfStream() {
        return (handshake[5] & IdentityHandshake.IN_BAND_END_OF_STREAM) != 0
                && (kindOf(handshake) == IdentityHandshake.Kind.CONNECT.code
                        || kindOf(handshake) == IdentityHandshake.Kind.REVERSE.code);
    }

    private static String describe(NodeIdentity identity) {
        if (identity == null) {
            return "(unknown)";
        }
        return identity.id().map(Object::toString).orElse(identity.toText());
    }
}
