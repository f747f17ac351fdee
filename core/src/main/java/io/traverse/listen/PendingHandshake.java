package io.traverse.listen;

import io.traverse.firewall.SimulatedFirewall;
import io.traverse.protocol.HandshakeProof;
import io.traverse.protocol.IdentityHandshake;
import io.traverse.protocol.ProtocolException;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;

/**
 * A connection whose handshake is in progress: what has arrived of its request, what was decided
 * about it, and the reads and replies on its channel. {@link HandshakeLoop} decides and keeps the
 * lists; this holds no thread of its own. The accepting thread fills it first; once it is handed to
 * the loop (through the loop's queue of arrivals), only the loop's thread touches it.
 */
final class PendingHandshake {
    /**
     * What the accepting thread reads at once: a request of two typical identities fits, so one
     * read takes it; a larger one is completed by the loop.
     */
    private static final int FIRST_READ = 1024;

    private static final byte[] ACCEPT_REPLY = IdentityHandshake.encodeAccept();
    private static final byte[] ACCEPT_REPLY_IN_BAND = IdentityHandshake.encodeAccept(true);

    final SocketChannel channel;
    final InetSocketAddress remote;
    final SimulatedFirewall.Verdict firewall;
    final long deadlineNanos;
    final ByteBuffer header = ByteBuffer.allocate(IdentityHandshake.HEADER_LENGTH);
    ByteBuffer body;
    SelectionKey key;
    AcceptQueue queue;
    boolean dropped;
    /** Why the answer would be OVERLOAD if the wait for room ends without room. */
    String overloadReason;

    boolean reservedWhileWaiting;
    /** The accepting thread tried {@code completeAtOnce}; what it read is in the buffers. */
    boolean triedAtOnce;
    /** The request asked for in-band end-of-stream: the connection runs through a tunnel. */
    boolean inBandEndOfStream;
    /** Decided on the accepting thread: wait for room in this verdict's backlog (the loop does). */
    HandshakeJudge.Verdict roomVerdict;
    /** The request asked to be held until the client confirms it (a rival attempt ran). */
    boolean hold;
    /** The request asked for TLS ({@code IdentityHandshake.TLS}): the ACCEPT agrees, and TLS runs after it. */
    boolean tls;
    /** A REVERSE request: the connection goes to the dial-back rendezvous of a connect of this node's. */
    boolean reverse;
    /**
     * Accepted: its slot reserved, waiting for what the client sends right after the ACCEPT —
     * CONFIRM when held, the key proof's Finished when it proves keys, both in that order (the loop
     * watches).
     */
    boolean awaitingConfirm;
    /** The node the request states as its source, for the log; null when anonymous. */
    io.traverse.identity.NodeId source;
    /** The key proof of the request, whose Finished the client owes after the ACCEPT; or null. */
    HandshakeProof.Accepted proof;
    /** What has arrived of the CONFIRM and Finished ({@link #tailLength()} bytes), once accepted. */
    ByteBuffer tail;

    PendingHandshake(
            SocketChannel channel, InetSocketAddress remote, SimulatedFirewall.Verdict firewall, long deadlineNanos) {
        this.channel = channel;
        this.remote = remote;
        this.firewall = firewall;
        this.deadlineNanos = deadlineNanos;
    }

    static InetSocketAddress remoteOf(SocketChannel channel) {
        try {
            return (InetSocketAddress) channel.getRemoteAddress();
        } catch (IOException e) {
            return new InetSocketAddress(0);
        }
    }

    int received() {
        return header.position() + (body == null ? 0 : body.position());
    }

    /**
     * The single read of {@code HandshakeLoop.completeAtOnce}: returns the request if it arrived
     * whole, else null, keeping what was read.
     *
     * @throws ProtocolException if the request is malformed or bytes follow it
     */
    IdentityHandshake.Request readAtOnce() throws IOException {
        boolean blocking = channel.isBlocking();
        if (blocking && channel.socket().getInputStream().available() == 0) {
            // Often the acceptor got the connection before the client, which has just seen its
            // connect() return, could send the request: let it run once. Measured: the fast path
            // then serves 99.8 % of connections instead of 55 %, on one core or two.
            Thread.yield();
            if (channel.socket().getInputStream().available() == 0) {
                return null;
            }
        }
        ByteBuffer first = ByteBuffer.allocate(FIRST_READ);
        int n = channel.read(first);
        if (n == 0 && !blocking) {
            Thread.yield(); // as above
            n = channel.read(first);
        }
        if (n < 0) {
            throw new EOFException("closed before sending a handshake");
        }
        first.flip();
        if (first.remaining() < IdentityHandshake.HEADER_LENGTH) {
            header.put(first);
            return null;
        }
        first.get(header.array());
        header.position(IdentityHandshake.HEADER_LENGTH);
        int length = IdentityHandshake.checkHeader(header);
        if (first.remaining() > length) {
            throw new ProtocolException(
                    (first.remaining() - length) + " bytes after the request, sent before the reply");
        }
        if (first.remaining() < length) {
            body = ByteBuffer.allocate(length); // validated against the maximum first
            body.put(first);
            return null;
        }
        return IdentityHandshake.decodeRequest(IdentityHandshake.code(header), first);
    }

    /**
     * Reads what has arrived on the registered, non-blocking channel: returns the request once it
     * is complete, else null.
     *
     * @throws EOFException if the client closed before completing its request (the message says so)
     * @throws ProtocolException if the request is malformed or bytes follow it
     */
    IdentityHandshake.Request readRest() throws IOException {
        while (true) {
            ByteBuffer target = body == null ? header : body;
            int n = channel.read(target);
            if (n < 0) {
                throw new EOFException(
                        "closed by the peer after " + received() + " bytes, before completing its handshake");
            }
            if (target.hasRemaining()) {
                return null; // wait for the rest
            }
            if (body == null) {
                int length = IdentityHandshake.checkHeader(header);
                body = ByteBuffer.allocate(length); // validated against the maximum first
                continue;
            }
            body.flip();
            ByteBuffer beyond = ByteBuffer.allocate(64);
            if (channel.read(beyond) > 0) { // the same rule as on the accepting thread's single read
                throw new ProtocolException("bytes after the request, sent before the reply");
            }
            return IdentityHandshake.decodeRequest(IdentityHandshake.code(header), body);
        }
    }

    /** A client that gave up while waiting has closed its end (or broke the protocol by talking first). */
    boolean peerGone() {
        try {
            return channel.read(ByteBuffer.allocate(1)) != 0;
        } catch (IOException e) {
            return true;
        }
    }

    /** Bytes the client sends after the ACCEPT before its application's: CONFIRM, and Finished after a full agreement. */
    int tailLength() {
        return (hold ? 1 : 0) + (proof != null ? proof.finishedLength() : 0);
    }

    /** Sends ACCEPT (with the key answer when the request proves keys); it fits the empty send buffer of a new connection. */
    void sendAccept() throws IOException {
        ByteBuffer out = ByteBuffer.wrap(
                proof != null
                        ? IdentityHandshake.encodeAccept(inBandEndOfStream, proof.answer(), tls)
                        : tls
                                ? IdentityHandshake.encodeAccept(inBandEndOfStream, true)
                                : inBandEndOfStream ? ACCEPT_REPLY_IN_BAND : ACCEPT_REPLY);
        channel.write(out);
        if (out.hasRemaining()) {
            throw new IOException("send buffer of a new connection is full");
        }
    }

    /** Best effort: the reply fits any fresh send buffer; if it does not, the connection just closes. */
    void replyAndClose(IdentityHandshake.Reply reply) {
        writeAndClose(IdentityHandshake.encode(reply));
    }

    void writeAndClose(byte[] bytes) {
        try {
            if (channel.isBlocking()) {
                channel.configureBlocking(false);
            }
            channel.write(ByteBuffer.wrap(bytes));
            channel.shutdownOutput();
        } catch (IOException | RuntimeException ignored) {
            // the peer is gone or misbehaving; closing is all that is left
        }
        close();
    }

    void close() {
        try {
            channel.close();
        } catch (IOException ignored) {
            // already gone
        }
    }
}
