package io.traverse.listen;

import io.traverse.connect.InBandEndOfStreamSocket;
import io.traverse.firewall.FirewallRule;
import io.traverse.firewall.SimulatedFirewall;
import io.traverse.identity.NodeIdentity;
import io.traverse.protocol.HandshakeProof;
import io.traverse.protocol.IdentityHandshake;
import io.traverse.protocol.IdentityHandshake.Answer;
import io.traverse.protocol.ProtocolException;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads and answers identity handshakes of freshly accepted connections. A request that has fully
 * arrived is answered at once, on the thread that accepted the connection ({@link #submit}); every
 * other connection goes to this loop's own thread and waits in a selector with non-blocking I/O,
 * so a client that sends nothing or sends garbage holds only its own buffer and delays nobody.
 * Each waiting connection has a deadline; their number is bounded. Connections answered ACCEPT go,
 * in blocking mode, to their virtual port's backlog.
 *
 * <p>Answering on the accepting thread saves the common connection a hand-off between threads
 * (a selector wake-up and a context switch, a tenth of a loopback connection setup). Nothing on
 * that path can block: it reads only bytes that are there, writes a reply that fits the empty
 * send buffer of a new connection, and hands anything that must wait (a full backlog, an
 * incomplete request, a firewall that drops) to the loop.
 *
 * <p>Every state a connection can wait in (its request arriving, room in a backlog, a hold until
 * CONFIRM, silence for a simulated firewall that drops) has its deadline and its way out here, on
 * the same selector thread; a connection's buffers and the I/O on its channel are in
 * {@link PendingHandshake}.
 */
final class HandshakeLoop implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(HandshakeLoop.class);

    private final Selector selector;
    private final HandshakeJudge judge;
    private final SimulatedFirewall firewall;
    private final Supplier<NodeIdentity> identity;
    private final long timeoutNanos;
    private final int maxPending;
    private final io.traverse.connect.KernelTls kernelTls;
    /** Connections handed over by the accepting thread, some with their request partly read or decided. */
    private final Queue<PendingHandshake> arrivals = new ConcurrentLinkedQueue<>();

    private final List<PendingHandshake> accepted = new ArrayList<>();
    /** Complete, accepted-in-principle handshakes whose backlog is full, oldest first. */
    private final ArrayDeque<PendingHandshake> waitingForRoom = new ArrayDeque<>();

    private volatile boolean roomFreed;
    private final Set<PendingHandshake> pending = new LinkedHashSet<>();
    private volatile boolean running = true;
    private long evictions;
    private volatile Thread loopThread;

    HandshakeLoop(
            HandshakeJudge judge,
            SimulatedFirewall firewall,
            Supplier<NodeIdentity> identity,
            long timeoutNanos,
            int maxPending,
            io.traverse.connect.KernelTls kernelTls)
            throws IOException {
        this.kernelTls = kernelTls;
        this.selector = Selector.open();
        this.judge = judge;
        this.firewall = firewall;
        this.identity = identity;
        this.timeoutNanos = timeoutNanos;
        this.maxPending = maxPending;
    }

    /**
     * Called by the acceptor thread with a new connection: answers it at once when its request is
     * complete, else hands it to the loop's thread.
     */
    void submit(SocketChannel channel) {
        InetSocketAddress remote = PendingHandshake.remoteOf(channel);
        PendingHandshake p = new PendingHandshake(
                channel, remote, firewall.check(remote.getAddress()), System.nanoTime() + timeoutNanos);
        try {
            if (completeAtOnce(p)) {
                return;
            }
        } catch (IOException e) {
            log.debug("Connection from {} failed before its handshake: {}", remote, e.toString());
            p.close();
            return;
        }
        p.triedAtOnce = true;
        arrivals.add(p);
        selector.wakeup();
    }

    /** Called by application threads when a backlog has room again or closed. */
    void roomFreed() {
        roomFreed = true;
        selector.wakeup();
    }

    void stop() {
        running = false;
        selector.wakeup();
    }

    /** Releases the selector of a loop that never ran (its listener could not be set up). */
    void closeUnstarted() {
        try {
            selector.close();
        } catch (IOException ignored) {
            // nothing more to do
        }
    }

    @Override
    public void run() {
        loopThread = Thread.currentThread();
        try {
            while (running) {
                // selectNow() below cancels any wakeup() the acceptor sent meanwhile, so never
                // block while arrivals wait; a wakeup after this check still ends select().
                if (arrivals.isEmpty() && !roomFreed) {
                    selector.select(nextTimeoutMillis());
                } else {
                    selector.selectNow();
                }
                registerArrivals();
                processSelected();
                if (roomFreed) {
                    roomFreed = false;
                    admitWaiting();
                }
                while (!accepted.isEmpty()) {
                    // Cancelled keys leave the selector at the next selection; only then may a channel block again.
                    selector.selectNow();
                    List<PendingHandshake> ready = new ArrayList<>(accepted);
                    accepted.clear();
                    ready.forEach(this::deliver);
                    processSelected();
                }
                expireOverdue();
            }
        } catch (IOException | ClosedSelectorException e) {
            if (running) {
                log.error("Handshake loop failed; incoming direct connections are no longer served", e);
            }
        } finally {
            shutdown();
        }
    }

    private long nextTimeoutMillis() {
        if (pending.isEmpty()) {
            return 0; // no deadline to watch: sleep until something arrives
        }
        long nearest = Long.MAX_VALUE;
        for (PendingHandshake p : pending) {
            nearest = Math.min(nearest, p.deadlineNanos);
        }
        return Math.max(1, (nearest - System.nanoTime()) / 1_000_000 + 1);
    }

    private void registerArrivals() {
        PendingHandshake p;
        while ((p = arrivals.poll()) != null) {
            SocketChannel channel = p.channel;
            InetSocketAddress remote = p.remote;
            if (p.awaitingConfirm) {
                watchForConfirm(p);
                continue;
            }
            if (p.roomVerdict != null) {
                waitForRoom(p, p.roomVerdict);
                continue;
            }
            try {
                if (!p.triedAtOnce && completeAtOnce(p)) {
                    continue;
                }
                if (pending.size() >= maxPending) {
                    evictOldest();
                }
                channel.configureBlocking(false);
                p.key = channel.register(selector, SelectionKey.OP_READ, p);
                pending.add(p);
                read(p); // part of the request may have arrived meanwhile
            } catch (IOException e) {
                log.debug("Connection from {} failed before its handshake: {}", remote, e.toString());
                forget(p);
                p.close();
            }
        }
    }

    /**
     * The common case, taken while the channel is still in blocking mode (non-blocking when an
     * application thread leads, which reads only what has arrived just the same): a client sends its
     * request right after connecting, so it has usually arrived in full by now. Then it is read in
     * one system call, decided and answered at once — no mode switches, no selector registration.
     * A blocking read cannot block because bytes are there ({@code available()}; a non-blocking one
     * needs no such look), and the reply fits the empty send buffer of a new connection. One read
     * may take the whole request because a client sends nothing more before it has the reply
     * (docs/protocol.md); bytes beyond the request break that rule and are refused. Returns false,
     * keeping what was read, when the request is incomplete or the connection must be held.
     */
    private boolean completeAtOnce(PendingHandshake p) throws IOException {
        if (p.firewall.action() == FirewallRule.Action.DROP) {
            return false;
        }
        IdentityHandshake.Request request;
        try {
            request = p.readAtOnce();
        } catch (ProtocolException e) {
            reject(p, e);
            return true;
        }
        if (request == null) {
            return false;
        }
        decide(p, request);
        return true;
    }

    /**
     * Makes room by closing the handshake that has waited longest. Well-behaved clients complete
     * within a round trip, so under a flood of silent or slow connections it is the flood that
     * gets cycled out, not the newcomer.
     */
    private void evictOldest() {
        Iterator<PendingHandshake> it = pending.iterator();
        PendingHandshake oldest = it.next();
        it.remove();
        oldest.key.cancel();
        if (oldest.awaitingConfirm) {
            oldest.awaitingConfirm = false;
            oldest.queue.release();
            oldest.close(); // already accepted: nothing to answer
            return;
        }
        if (waitingForRoom.remove(oldest)) {
            oldest.queue.removeWaiter();
            if (oldest.reservedWhileWaiting) {
                oldest.queue.release();
            }
        }
        evictions++;
        if (evictions == 1 || evictions % 1000 == 0) {
            log.warn(
                    "{} handshakes in progress, the limit: closing the oldest ({}); {} closed this way so far",
                    maxPending,
                    oldest.remote,
                    evictions);
        }
        oldest.replyAndClose(new IdentityHandshake.Reply(
                Answer.OVERLOAD,
                null,
                "too many handshakes in progress (" + maxPending + "); this one waited longest"));
    }

    private void processSelected() {
        Iterator<SelectionKey> it = selector.selectedKeys().iterator();
        while (it.hasNext()) {
            SelectionKey key = it.next();
            it.remove();
            if (key.isValid() && key.isReadable()) {
                read((PendingHandshake) key.attachment());
            }
        }
    }

    /** Reads what has arrived on a registered, non-blocking channel; decides once the request is complete. */
    private void read(PendingHandshake p) {
        if (p.awaitingConfirm) {
            readConfirm(p);
            return;
        }
        IdentityHandshake.Request request;
        try {
            request = p.readRest();
        } catch (ProtocolException e) {
            reject(p, e);
            return;
        } catch (EOFException e) {
            finish(p, e.getMessage());
            return;
        } catch (IOException e) {
            finish(p, "failed during its handshake: " + e);
            return;
        }
        if (request != null) {
            decide(p, request);
        }
    }

    private void reject(PendingHandshake p, ProtocolException e) {
        log.info("Rejected connection from {}: {}", p.remote, e.getMessage());
        forget(p);
        p.replyAndClose(new IdentityHandshake.Reply(Answer.PROTOCOL_ERROR, null, e.getMessage()));
    }

    /** Answers a complete request, on either path. */
    private void decide(PendingHandshake p, IdentityHandshake.Request request) {
        p.source = request.source() == null ? null : request.source().id().orElse(null);
        p.inBandEndOfStream = request.inBandEndOfStream();
        p.hold = request.holdUntilConfirmed();
        p.tls = judge.runsTls(request);
        p.reverse = request.kind() == IdentityHandshake.Kind.REVERSE;
        if (p.firewall.action() == FirewallRule.Action.DROP) {
            // Say nothing, as a SYN-dropping firewall would; the deadline closes it.
            p.key.interestOps(0);
            p.dropped = true;
            return;
        }
        if (p.firewall.action() == FirewallRule.Action.DENY) {
            forget(p);
            String reason = p.firewall.describe(p.remote.getAddress());
            log.debug("Refused connection from {}: {}", p.remote, reason);
            p.replyAndClose(new IdentityHandshake.Reply(Answer.REFUSED, null, reason));
            return;
        }
        HandshakeJudge.Verdict verdict;
        try {
            verdict = judge.judge(p.remote, request);
        } catch (RuntimeException e) {
            log.error("Handshake judge failed for {}", p.remote, e);
            verdict = HandshakeJudge.Verdict.reject(Answer.OVERLOAD, "internal error: " + e);
        }
        if (verdict.waitForRoom()) {
            if (Thread.currentThread() == loopThread) {
                waitForRoom(p, verdict);
            } else {
                // Waiting is the loop's business: its selector and its list of waiting handshakes.
                p.roomVerdict = verdict;
                arrivals.add(p);
                selector.wakeup();
            }
            return;
        }
        forget(p);
        if (verdict.answer() != Answer.ACCEPT || verdict.queue() == null) {
            log.debug(
                    "Answered {} to {}{}: {}",
                    verdict.answer(),
                    p.remote,
                    verdict.queue() == null ? " (a probe)" : "",
                    verdict.reason());
            p.writeAndClose(IdentityHandshake.encode(
                    new IdentityHandshake.Reply(verdict.answer(), identity.get(), verdict.reason())));
            return;
        }
        p.queue = verdict.queue();
        p.proof = verdict.proof();
        admit(p);
    }

    /** Sends ACCEPT for a reserved slot and hands the connection over. */
    private void admit(PendingHandshake p) {
        try {
            p.sendAccept();
        } catch (IOException e) {
            p.queue.release();
            log.debug("Connection from {} failed while accepting: {}", p.remote, e.toString());
            p.close();
            return;
        }
        if (p.tailLength() > 0) {
            // A rival attempt of the client's may win, or the client owes its key proof's Finished:
            // wait for them on the loop, where the selector is (registered there after the next
            // selection, which drops a cancelled key).
            p.tail = ByteBuffer.allocate(p.tailLength());
            if (p.key == null && !p.hold && finishedAtOnce(p)) {
                return;
            }
            p.awaitingConfirm = true;
            arrivals.add(p);
            selector.wakeup();
        } else if (p.key == null) {
            deliver(p); // still blocking: hand it over now
        } else {
            accepted.add(p); // blocking again only after the selector lets go of it
        }
    }

    /** An accepted, held connection: watch it for the client's CONFIRM within its handshake deadline. */
    private void watchForConfirm(PendingHandshake p) {
        try {
            if (pending.size() >= maxPending) {
                evictOldest();
            }
            if (p.key != null) {
                // Its request was read here and its key cancelled, maybe in this very pass over the
                // arrivals: only a selection lets go of a cancelled key (ready keys stay selected).
                selector.selectNow();
            }
            p.channel.configureBlocking(false);
            p.key = p.channel.register(selector, SelectionKey.OP_READ, p);
            pending.add(p);
            readConfirm(p); // it may be there already
        } catch (IOException | java.nio.channels.CancelledKeyException e) {
            drop(p, "failed while waiting for its confirmation: " + e);
        }
    }

    /**
     * The common case of an unheld request that proves keys, on the thread that accepted it while
     * the channel still blocks: the client sends its Finished as soon as it has read the ACCEPT,
     * so let it run once and take the Finished if it is there (a blocking read of bytes that are
     * there does not block). True if the connection was handed over or closed.
     */
    private boolean finishedAtOnce(PendingHandshake p) {
        try {
            if (!p.channel.isBlocking()) {
                return false;
            }
            Thread.yield();
            if (p.channel.socket().getInputStream().available() < p.tail.capacity()) {
                return false;
            }
            p.channel.read(p.tail);
            if (p.tail.hasRemaining()) {
                return false; // the loop reads the rest
            }
            if (!checkFinished(p)) {
                return true;
            }
            deliver(p);
            return true;
        } catch (IOException e) {
            p.queue.release();
            finish(p, "failed while sending its key proof: " + e);
            return true;
        }
    }

    /**
     * CONFIRM when held, then the Finished when the request proves keys, never a byte more (the
     * application's data may follow at once): they hand the connection over; end-of-stream before
     * them means another attempt of the client's won, so nobody ever sees this one.
     */
    private void readConfirm(PendingHandshake p) {
        try {
            int n = p.channel.read(p.tail);
            if (n == 0) {
                return;
            }
            if (n < 0) {
                drop(
                        p,
                        p.hold && p.tail.position() == 0
                                ? "closed without confirming: another attempt of the client won"
                                : "closed before sending its key proof");
                return;
            }
            if (p.hold && (p.tail.get(0) & 0xff) != IdentityHandshake.CONFIRM) {
                drop(p, "sent " + (p.tail.get(0) & 0xff) + " instead of confirming its held connection");
                return;
            }
            if (p.tail.hasRemaining()) {
                return;
            }
            forget(p);
            p.awaitingConfirm = false;
            if (!checkFinished(p)) {
                return;
            }
            accepted.add(p); // blocking again only after the selector lets go of it
        } catch (IOException e) {
            drop(p, "failed while waiting for its confirmation: " + e);
        }
    }

    /**
     * Checks the key proof's Finished in a complete tail; a wrong one closes this connection only
     * (its slot goes back) and is logged at WARN with the node the request claimed to be.
     */
    private boolean checkFinished(PendingHandshake p) {
        if (p.proof == null || !p.proof.full()) {
            return true; // resumed: the request's offer was the proof, admitted once
        }
        byte[] finished = java.util.Arrays.copyOfRange(
                p.tail.array(), p.tail.capacity() - HandshakeProof.FINISHED_LENGTH, p.tail.capacity());
        if (p.proof.checkFinished(finished)) {
            return true;
        }
        log.warn(
                "Closed connection from {} stating node {}: its key proof (Finished) is wrong: a replayed request,"
                        + " or a node that does not hold that key",
                p.remote,
                p.source);
        p.queue.release();
        p.close();
        return false;
    }

    /** Gives up a held connection: its slot goes back, and it closes unseen. */
    private void drop(PendingHandshake p, String why) {
        p.awaitingConfirm = false;
        p.queue.release();
        finish(p, why);
    }

    /**
     * The backlog is full: the handshake waits, answer withheld, as the kernel holds back a SYN
     * when its accept queue is full — until the application accepts and room frees up, or until
     * the handshake deadline, which answers OVERLOAD.
     */
    private void waitForRoom(PendingHandshake p, HandshakeJudge.Verdict verdict) {
        try {
            if (p.key == null) {
                if (pending.size() >= maxPending) {
                    evictOldest();
                }
                p.channel.configureBlocking(false);
                p.key = p.channel.register(selector, 0, p);
                pending.add(p);
            } else {
                p.key.interestOps(0);
            }
        } catch (IOException e) {
            finish(p, "failed while waiting for room: " + e);
            return;
        }
        p.queue = verdict.queue();
        p.proof = verdict.proof();
        p.overloadReason = verdict.reason();
        p.queue.addWaiter();
        waitingForRoom.addLast(p);
        log.debug("Connection from {} waits for room in a full backlog", p.remote);
        // Room may have come (or the port gone) between the judge's look and now.
        if (p.queue.tryReserve()) {
            p.reservedWhileWaiting = true;
            roomFreed = true;
        } else if (p.queue.isClosed()) {
            roomFreed = true;
        }
    }

    /** Looks at waiting handshakes, oldest first, after some backlog freed a slot or closed. */
    private void admitWaiting() {
        for (Iterator<PendingHandshake> it = waitingForRoom.iterator(); it.hasNext(); ) {
            PendingHandshake p = it.next();
            boolean reserved = p.reservedWhileWaiting || p.queue.tryReserve();
            if (!reserved && !p.queue.isClosed()) {
                continue;
            }
            it.remove();
            p.queue.removeWaiter();
            forget(p);
            if (!reserved) {
                p.writeAndClose(IdentityHandshake.encode(new IdentityHandshake.Reply(
                        Answer.PORT_NOT_FOUND,
                        identity.get(),
                        "the virtual port closed while the connection waited for room")));
                continue;
            }
            if (p.peerGone()) {
                p.queue.release();
                p.close();
                continue;
            }
            admit(p);
        }
    }

    /** Stops watching a connection (no-op for one that was never registered). */
    private void forget(PendingHandshake p) {
        if (p.key != null) {
            pending.remove(p);
            p.key.cancel();
        }
    }

    private void deliver(PendingHandshake p) {
        try {
            p.channel.configureBlocking(true);
            // A tunnelled connection (it asked in its handshake) carries end-of-stream in-band.
            java.net.Socket socket =
                    p.inBandEndOfStream ? new InBandEndOfStreamSocket(p.channel.socket()) : p.channel.socket();
            if (!p.tls) {
                p.queue.deliver(socket);
                return;
            }
            if (p.reverse) {
                // A dial-back: this node is the one that connects; its connect wraps the socket (TLS client).
                kernelTls.agreed(socket, p.source);
                p.queue.deliver(socket);
            } else {
                kernelTls.accepting(socket, p.source, p.queue::deliver, p.queue::release);
            }
        } catch (IOException | RuntimeException e) {
            p.queue.release();
            log.debug("Connection from {} failed while handing over: {}", p.remote, e.toString());
            p.close();
        }
    }

    private void expireOverdue() {
        long now = System.nanoTime();
        for (Iterator<PendingHandshake> it = pending.iterator(); it.hasNext(); ) {
            PendingHandshake p = it.next();
            if (now - p.deadlineNanos >= 0) {
                it.remove();
                p.key.cancel();
                if (p.awaitingConfirm) {
                    p.awaitingConfirm = false;
                    p.queue.release();
                    log.debug(
                            "Closed connection from {}: accepted, but not confirmed or not proved (Finished) within {} ms",
                            p.remote,
                            timeoutNanos / 1_000_000);
                    p.close();
                    continue;
                }
                if (p.queue != null) {
                    waitingForRoom.remove(p);
                    p.queue.removeWaiter();
                    if (p.reservedWhileWaiting) {
                        p.queue.release();
                    }
                    log.info("Refused connection from {}: {}", p.remote, p.overloadReason);
                    p.writeAndClose(IdentityHandshake.encode(
                            new IdentityHandshake.Reply(Answer.OVERLOAD, identity.get(), p.overloadReason)));
                    continue;
                }
                if (p.dropped) {
                    log.debug("Closed connection from {} held by {}", p.remote, p.firewall.rule());
                } else {
                    log.info(
                            "Closed connection from {}: no complete handshake within {} ms ({} bytes received)",
                            p.remote,
                            timeoutNanos / 1_000_000,
                            p.received());
                }
                p.close();
            }
        }
    }

    private void finish(PendingHandshake p, String why) {
        log.debug("Connection from {} {}", p.remote, why);
        forget(p);
        p.close();
    }

    private void shutdown() {
        for (PendingHandshake p : waitingForRoom) {
            p.queue.removeWaiter();
            if (p.reservedWhileWaiting) {
                p.queue.release();
            }
        }
        waitingForRoom.clear();
        for (PendingHandshake p : pending) {
            if (p.awaitingConfirm) {
                p.queue.release();
            }
            p.close();
        }
        pending.clear();
        for (PendingHandshake p : accepted) {
            p.queue.release();
            p.close();
        }
        accepted.clear();
        PendingHandshake arrival;
        while ((arrival = arrivals.poll()) != null) {
            if (arrival.awaitingConfirm) {
                arrival.queue.release(); // accepted and held: its slot was reserved
            }
            arrival.close(); // nothing else reserved yet, whatever was decided
        }
        try {
            selector.close();
        } catch (IOException ignored) {
            // nothing more to do
        }
    }
}
