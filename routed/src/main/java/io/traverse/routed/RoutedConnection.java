package io.traverse.routed;

import io.netty.buffer.ByteBuf;
import io.traverse.identity.NodeId;
import io.traverse.security.ConnectionSeal;
import io.traverse.wire.LinkLimits;
import io.traverse.wire.Relay;
import io.traverse.wire.RelayDirection;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One end of a virtual connection relayed by hubs: the byte stream of a {@link RoutedSocket} over
 * RELAY frames, with credit-based flow control end to end. This end grants the other at most its
 * share of the node's {@link ReceiveBudget} beyond what its application has read (so no buffer
 * anywhere holds more of this connection than that), and grants more as the application reads;
 * writes wait for the other end's grants. FIN is a half-close, RESET ends both directions at once.
 *
 * <p>Frames arrive on the hub link's event loop, or on the data link's reader thread while there
 * is a data link ({@code on...} methods); reads and writes come
 * from application threads and block on this connection alone, so a stalled reader holds up
 * nothing but its own connection.
 *
 * <p>One class, though long, because every field from {@link #inbox} to {@link #bytesOut} is
 * guarded by {@link #lock}: both directions' offsets, the FIN and RESET states (open, half-closed
 * either way, reset, closed) and the receive-budget share, which the reads, writes and frames
 * change together and must see alike. Splitting the send side, the receive side or the budget
 * bookkeeping into classes of their own would spread that one lock's state across them.
 */
final class RoutedConnection {
    /**
     * Payloads smaller than this are copied out of the link's read buffer, so that many tiny
     * frames cannot pin many large buffers. Larger ones are kept as slices of the read buffer
     * while the reader keeps up (nothing else queued), or when the frame was read into a buffer of
     * its own: a reader that falls behind gets copies of frames that share a read buffer, so what
     * its queue pins is its own bytes, not the read buffers they shared with other connections.
     */
    private static final int COPY_BELOW = 8 * 1024;

    private final RoutedConnections table;
    private final RoutedConnections.Key key;
    private final NodeId opener;
    private final NodeId acceptor;
    private final RelayDirection outbound;
    private final NodeId peer;
    private final int virtualPort;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition readable = lock.newCondition();
    private final Condition writable = lock.newCondition();
    /** Writers one at a time, so that DATA frames leave in stream order. */
    private final ReentrantLock writing = new ReentrantLock();
    // Guarded by lock:
    private final ArrayDeque<ByteBuf> inbox = new ArrayDeque<>();
    /**
     * On a sealed connection, the stream offsets of the frames in {@link #inbox} not opened yet,
     * oldest first: every frame but the head, and the head until a read opens it. Frames are opened
     * by the application's reading thread, not by the link's one reader, so that opening a node's
     * streams runs on as many cores as read them.
     */
    private final ArrayDeque<Long> unopened = new ArrayDeque<>();
    /** The stream offset up to which the other end may send (what this end granted). */
    private long granted;
    /** Bytes of the other end's stream that arrived. */
    private long received;
    /** Bytes of the other end's stream read by the application or discarded (shutdownInput). */
    private long consumed;
    /** The stream offset up to which this end may send, and how far it has sent. */
    private long sendLimit;

    private long sent;
    private boolean peerFinished;
    /** No more writes: shutdownOutput or close was called (the FIN itself may still wait for a DATA in flight). */
    private boolean finSent;
    /** DATA frames whose bytes were reserved but which are not handed to the link yet. */
    private int sendsInFlight;
    /** The FIN waits for {@link #sendsInFlight} to reach 0 (it must not overtake the last DATA). */
    private boolean finWaiting;

    private boolean inputShut;
    private boolean closed;
    /**
     * A member of the node's receive budget: it counts {@link #granted} minus {@link #consumed} there.
     * Once it leaves (nothing more can arrive, or nothing that does is kept), it counts only what it
     * received and was not read yet, until that is read or thrown away.
     */
    private boolean inBudget;
    /** What this connection counts in the receive budget (guarded by lock). */
    private long counted;

    private String resetReason;
    private long bytesIn;
    private long bytesOut;
    // Liveness, touched on the loop:
    private volatile long lastHeardNanos = System.nanoTime();
    /** Hubs on the path, set from the OPEN or ACCEPT before the connection is handed out. */
    private volatile int hubs;
    /**
     * The end-to-end encryption of both streams, or null for a connection in clear; set from the
     * key agreement before the connection is handed out, and never changed after.
     */
    private volatile ConnectionSeal seal;

    /**
     * @param initialGrant what the other end may send before this end's application reads (a share
     *        of the receive budget for an opener; less for an accepted connection still in the backlog),
     *        counted in the receive budget already ({@link ReceiveBudget#join}): the connection is a member
     */
    RoutedConnection(
            RoutedConnections table,
            RoutedConnections.Key key,
            NodeId acceptor,
            boolean local,
            int virtualPort,
            long initialGrant,
            long initialSendCredit) {
        this.table = table;
        this.key = key;
        this.opener = key.opener();
        this.acceptor = acceptor;
        this.outbound = local ? RelayDirection.TOWARD_ACCEPTOR : RelayDirection.TOWARD_OPENER;
        this.peer = local ? acceptor : opener;
        this.virtualPort = virtualPort;
        this.granted = initialGrant;
        this.inBudget = true;
        this.counted = initialGrant;
        this.sendLimit = initialSendCredit;
    }

    RoutedConnections.Key key() {
        return key;
    }

    /** True if {@code frame} is this connection's: the same acceptor (opener and id are the key) and travelling toward this end. */
    boolean carries(Relay frame) {
        return frame.acceptor().equals(acceptor) && frame.direction() != outbound;
    }

    NodeId peer() {
        return peer;
    }

    int virtualPort() {
        return virtualPort;
    }

    /**
     * Learns the path length from a frame the other end sent with the full hop limit (OPEN or
     * ACCEPT): every hub but the last takes one off when it forwards to the next hub.
     */
    void pathFrom(Relay frameFromPeer) {
        hubs = hubsCrossed(frameFromPeer);
    }

    /** Hubs a frame crossed, if it left its sender with the full hop limit. */
    static int hubsCrossed(Relay frame) {
        return LinkLimits.DEFAULT_RELAY_HOPS - frame.hopsLeft() + 1;
    }

    int hubs() {
        return hubs;
    }

    /** Seals both streams end to end from now on (before the connection is handed out). */
    void sealWith(ConnectionSeal seal) {
        ConnectionSeal.prepareForStreams();
        this.seal = seal;
    }

    /** True if both streams are encrypted end to end. */
    boolean sealed() {
        return seal != null;
    }

    /** Whether this connection has been reset (by either end, a hub, or the link). */
    boolean isReset() {
        lock.lock();
        try {
            return resetReason != null;
        } finally {
            lock.unlock();
        }
    }

    // ---- frames from the other end (hub link's event loop or data link's reader) ------------------

    void heard() {
        lastHeardNanos = System.nanoTime();
    }

    /** This node stood still for {@code nanos}: that much of the silence since the last frame is not the peer's. */
    void excuse(long nanos) {
        lastHeardNanos = Math.min(System.nanoTime(), lastHeardNanos + nanos);
    }

    long lastHeardNanos() {
        return lastHeardNanos;
    }

    /**
     * DATA at stream offset {@code offset}; takes over {@code payload} (the stream bytes). A gap
     * (frames lost with a hub that died) or bytes past the granted credit reset the connection.
     */
    void onData(long offset, ByteBuf payload) {
        if (seal != null) {
            payload.release();
            reset("node " + peer + " sent stream bytes in clear on a connection encrypted end to end", true);
            return;
        }
        take(offset, payload);
    }

    /**
     * SEALED at stream offset {@code offset}: opens the ciphertext and tag (taking over {@code sealed})
     * and takes the stream bytes as DATA. Bytes changed on the way, or sealed for another offset,
     * connection or key, reset the connection.
     */
    void onSealed(long offset, ByteBuf sealed) {
        if (seal == null) {
            sealed.release();
            reset("node " + peer + " sent sealed bytes on a connection in clear", true);
            return;
        }
        take(offset, sealed);
    }

    /**
     * Queues the stream bytes of a DATA frame, or the sealed bytes of a SEALED one (opened when read),
     * at {@code offset}.
     */
    private void take(long offset, ByteBuf payload) {
        boolean sealedBytes = seal != null;
        int n = payload.readableBytes() - (sealedBytes ? ConnectionSeal.OVERHEAD : 0);
        String violation = null;
        boolean discard;
        lock.lock();
        try {
            if (resetReason != null) {
                payload.release();
                return;
            }
            if (offset != received) {
                violation =
                        "bytes " + received + " to " + offset + " of node " + peer + "'s stream were lost on the way";
                discard = true;
            } else if (received + n > granted) {
                violation =
                        "node " + peer + " sent " + (received + n - granted) + " bytes past the credit it was granted";
                discard = true;
            } else {
                received += n;
                discard = inputShut || closed;
                if (!discard) {
                    inbox.add(
                            n < COPY_BELOW || !inbox.isEmpty() && sharesItsBuffer(payload) ? copyOf(payload) : payload);
                    if (sealedBytes) {
                        unopened.add(offset);
                    }
                    readable.signalAll();
                }
            }
        } finally {
            lock.unlock();
        }
        if (violation != null) {
            payload.release();
            reset(violation, true);
        } else if (discard) {
            payload.release();
            if (closed) {
                reset("data arrived for a closed connection", true);
            } else {
                grant(n);
            }
        }
    }

    /**
     * Whether the bytes are a slice of a larger read buffer that other frames share (a greedy read),
     * rather than of a buffer the frame was read into on its own (a long frame on the data link):
     * only the first kind pins other connections' memory while it waits in a queue.
     */
    private static boolean sharesItsBuffer(ByteBuf payload) {
        ByteBuf root = payload.unwrap();
        return root == null || root.capacity() > payload.readableBytes() + 2 * Relay.DATA_OFFSET_LENGTH + 1024;
    }

    private static ByteBuf copyOf(ByteBuf payload) {
        try {
            return payload.alloc().heapBuffer(payload.readableBytes()).writeBytes(payload);
        } finally {
            payload.release();
        }
    }

    /** The other end may receive up to stream offset {@code limit} (CREDIT, PONG, ACCEPT); old limits change nothing. */
    void onCredit(long limit) {
        lock.lock();
        try {
            if (limit > sendLimit) {
                sendLimit = limit;
                writable.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    /** The other end's stream ended after {@code length} bytes. */
    void onFin(long length) {
        boolean done;
        String gap = null;
        lock.lock();
        try {
            if (length != received) {
                gap = "node " + peer + "'s stream ended at byte " + length + " but " + received
                        + " arrived: frames were lost on the way";
                done = false;
            } else {
                peerFinished = true;
                readable.signalAll();
                done = closed || finSent && inputShut;
            }
        } finally {
            lock.unlock();
        }
        if (gap != null) {
            reset(gap, true);
        } else if (done) {
            table.remove(this);
        }
    }

    /** The other end, a hub on the way or this node ended the connection; false if it was reset already. */
    boolean onReset(String reason) {
        lock.lock();
        try {
            if (resetReason != null) {
                return false;
            }
            resetReason = reason;
            if (!peerFinished || closed) {
                // What arrived of a stream that did not end is thrown away, as a kernel socket does on
                // RST. A stream that ended (FIN) arrived whole: it stays readable, so a RESET that
                // only crossed this end's last frames (an answer to a liveness PING, say, from an end
                // that finished and forgot the connection) loses nothing — unless the application
                // closed the socket, and nobody will read it.
                discardInbox();
            }
            readable.signalAll();
            writable.signalAll();
        } finally {
            lock.unlock();
        }
        table.remove(this);
        return true;
    }

    /** Resets this connection here, and tells the other end if {@code tellPeer}. */
    void reset(String reason, boolean tellPeer) {
        if (onReset(reason) && tellPeer) {
            table.send(Relay.reset(key.id(), opener, acceptor, outbound, reason));
        }
    }

    // ---- the application's side ------------------------------------------------------------

    /** Like {@link java.io.InputStream#read(byte[], int, int)}, waiting at most {@code timeoutMillis} (0: forever). */
    int read(byte[] b, int off, int len, int timeoutMillis) throws IOException {
        if (len == 0) {
            return 0;
        }
        int n = 0;
        int grant = 0;
        long limit = 0;
        String unopenable = null;
        lock.lock();
        try {
            long deadline = timeoutMillis > 0 ? System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis) : 0;
            while (inbox.isEmpty()) {
                failIfUnreadable();
                if (peerFinished || inputShut) {
                    return -1;
                }
                if (deadline != 0 && deadline - System.nanoTime() <= 0) {
                    throw new SocketTimeoutException("Read timed out");
                }
                await(readable, deadline, "reading");
            }
            failIfUnreadable();
            while (n < len && !inbox.isEmpty()) {
                if (unopened.size() == inbox.size()) {
                    unopenable = openHead();
                    if (unopenable != null) {
                        break; // what was read before it is the application's; the next read fails
                    }
                }
                ByteBuf head = inbox.peek();
                int chunk = Math.min(len - n, head.readableBytes());
                head.readBytes(b, off + n, chunk);
                n += chunk;
                if (!head.isReadable()) {
                    inbox.poll().release();
                }
            }
            bytesIn += n;
            consume(n);
            // Keep the other end allowed its share of the receive budget beyond what was read; top
            // up in quarters (or once everything queued is read), not for every read.
            long share = table.budget().share();
            long target = consumed + share;
            if (target > granted
                    && (target - granted >= share / 4
                            || inbox.isEmpty() && target - granted >= LinkLimits.MAX_RELAY_PAYLOAD)
                    && topUp() > 0) {
                grant = 1;
                limit = granted;
            }
        } finally {
            lock.unlock();
        }
        if (grant > 0) {
            table.send(Relay.credit(key.id(), opener, acceptor, outbound, limit));
        }
        if (unopenable != null && n == 0) {
            reset(unopenable, true);
            throw new SocketException("Connection reset: " + unopenable);
        }
        return n;
    }

    /**
     * Waits, holding {@link #lock}, until {@code condition} is signalled or the deadline (0: none)
     * passes; whoever files a frame (the link's loop or its data link's reader) signals it. Returns
     * with the lock held; the caller checks its state again.
     */
    private void await(Condition condition, long deadline, String doing) throws InterruptedIOException {
        try {
            if (deadline == 0) {
                condition.await();
            } else {
                long left = deadline - System.nanoTime();
                if (left > 0) {
                    condition.awaitNanos(left);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while " + doing);
        }
    }

    private void failIfUnreadable() throws SocketException {
        if (closed) {
            throw new SocketException("Socket closed");
        }
        if (resetReason != null && !peerFinished) {
            throw new SocketException("Connection reset: " + resetReason);
        }
    }

    /** Bytes readable without waiting. */
    int available() {
        lock.lock();
        try {
            long sum = -(long) unopened.size() * ConnectionSeal.OVERHEAD;
            for (ByteBuf b : inbox) {
                sum += b.readableBytes();
            }
            return (int) Math.min(Integer.MAX_VALUE, sum);
        } finally {
            lock.unlock();
        }
    }

    /** Like {@link java.io.OutputStream#write(byte[], int, int)}: sends as the other end grants credit. */
    void write(byte[] b, int off, int len) throws IOException {
        writing.lock();
        try {
            writeInOrder(b, off, len);
        } finally {
            writing.unlock();
        }
    }

    private void writeInOrder(byte[] b, int off, int len) throws IOException {
        while (len > 0) {
            int chunk;
            long offset;
            lock.lock();
            try {
                while (sendLimit == sent) {
                    failIfUnwritable();
                    await(writable, 0, "waiting for the peer to read");
                }
                failIfUnwritable();
                chunk = (int) Math.min(
                        Math.min(len, sendLimit - sent), seal == null ? Relay.MAX_DATA_BYTES : Relay.MAX_SEALED_BYTES);
                offset = sent;
                sent += chunk;
                bytesOut += chunk;
                sendsInFlight++;
            } finally {
                lock.unlock();
            }
            boolean sentOn = table.send(frameOf(offset, b, off, chunk));
            sendFinIfDue(true);
            if (!sentOn) {
                reset("the hub link is gone", false);
                failIfUnwritable();
            }
            off += chunk;
            len -= chunk;
        }
    }

    /** A DATA frame of these stream bytes, or a SEALED one on a connection encrypted end to end. */
    private Relay frameOf(long offset, byte[] b, int off, int chunk) throws SocketException {
        ConnectionSeal s = seal;
        if (s == null) {
            ByteBuf payload = table.allocator()
                    .directBuffer(Relay.DATA_OFFSET_LENGTH + chunk)
                    .writeLong(offset)
                    .writeBytes(b, off, chunk);
            return Relay.dataFrame(key.id(), opener, acceptor, outbound, payload);
        }
        int sealedLength = chunk + ConnectionSeal.OVERHEAD;
        int frameLength = Relay.DATA_OFFSET_LENGTH + sealedLength;
        // In the heap where the native provider seals (arrays go several times faster there); the
        // data link copies such frames into a buffer of its own to write them.
        boolean arrays = s.prefersArrays();
        ByteBuf payload = arrays
                ? table.allocator().heapBuffer(frameLength)
                : table.allocator().directBuffer(frameLength);
        try {
            payload.writeLong(offset);
            if (arrays) {
                s.seal(offset, b, off, chunk, payload.array(), payload.arrayOffset() + Relay.DATA_OFFSET_LENGTH);
            } else {
                s.seal(
                        offset,
                        java.nio.ByteBuffer.wrap(b, off, chunk),
                        payload.nioBuffer(Relay.DATA_OFFSET_LENGTH, sealedLength));
            }
            payload.writerIndex(frameLength);
        } catch (java.security.GeneralSecurityException | RuntimeException e) {
            payload.release();
            reset("cannot encrypt: " + e, true);
            throw new SocketException("Connection reset: cannot encrypt (" + e + ")");
        }
        return Relay.sealedFrame(key.id(), opener, acceptor, outbound, payload);
    }

    private void failIfUnwritable() throws SocketException {
        if (closed) {
            throw new SocketException("Socket closed");
        }
        if (resetReason != null) {
            throw new SocketException("Connection reset: " + resetReason);
        }
        if (finSent) {
            throw new SocketException("Socket output is shutdown");
        }
    }

    /**
     * Half-close: the other end reads EOF after what was written, and may go on writing. Does not
     * wait for a writer blocked on credit (that write fails); a DATA frame already on its way to the
     * link goes first.
     */
    void shutdownOutput() throws SocketException {
        boolean done;
        lock.lock();
        try {
            failIfUnreadable();
            if (finSent) {
                return;
            }
            finSent = true;
            finWaiting = true;
            writable.signalAll();
            done = peerFinished && inputShut;
        } finally {
            lock.unlock();
        }
        sendFinIfDue(false);
        if (done) {
            table.remove(this);
        }
    }

    /** Sends the waiting FIN once no DATA is between reserving its bytes and the link; {@code dataSent}: one just was. */
    private void sendFinIfDue(boolean dataSent) {
        long length;
        lock.lock();
        try {
            if (dataSent) {
                sendsInFlight--;
            }
            if (!finWaiting || sendsInFlight > 0 || resetReason != null) {
                return;
            }
            finWaiting = false;
            length = sent;
        } finally {
            lock.unlock();
        }
        table.send(Relay.fin(key.id(), opener, acceptor, outbound, length));
    }

    /** Reads from now on see EOF; what arrives is dropped (and credited, so the other end is not stalled). */
    void shutdownInput() throws SocketException {
        long limit;
        lock.lock();
        try {
            failIfUnreadable();
            if (inputShut) {
                return;
            }
            inputShut = true;
            discardInbox();
            // What still arrives is dropped: none of its credit can be buffered any more.
            leaveBudgetLocked();
            topUp();
            limit = granted;
            readable.signalAll();
        } finally {
            lock.unlock();
        }
        table.send(Relay.credit(key.id(), opener, acceptor, outbound, limit));
    }

    /**
     * Closes this end: a FIN when everything sent was read (the other end reads EOF), a RESET when
     * unread bytes are thrown away, as a kernel socket does. The connection stays in the table until
     * the other end finishes too, so that data it still sends gets a RESET.
     */
    void close() {
        boolean unread;
        boolean done;
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            // What still arrives resets the connection: none of its credit can be buffered any more.
            leaveBudgetLocked();
            readable.signalAll();
            writable.signalAll();
            if (resetReason != null) {
                discardInbox(); // a stream that ended before the RESET, kept readable until now
                return;
            }
            unread = !inbox.isEmpty();
            if (!finSent && !unread) {
                finWaiting = true;
            }
            finSent = true;
            done = peerFinished;
        } finally {
            lock.unlock();
        }
        if (unread) {
            reset("node " + table.localId() + " closed the connection with unread data", true);
            return;
        }
        sendFinIfDue(false);
        if (done) {
            table.remove(this);
        }
    }

    /** Closes this end with a RESET, whatever was sent or read (SO_LINGER 0). */
    void abort() {
        lock.lock();
        try {
            closed = true;
        } finally {
            lock.unlock();
        }
        reset("node " + table.localId() + " aborted the connection", true);
    }

    /** Grants the other end {@code bytes} more (discarded input). */
    private void grant(int bytes) {
        long limit;
        lock.lock();
        try {
            consume(bytes);
            topUp();
            limit = granted;
        } finally {
            lock.unlock();
        }
        table.send(Relay.credit(key.id(), opener, acceptor, outbound, limit));
    }

    /** Leaves the node's receive budget (the connection left the table, or never got into it). */
    void leaveBudget() {
        lock.lock();
        try {
            leaveBudgetLocked();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Holding {@link #lock}: leaves the receive budget, still counting what was received and not
     * read (a stream that ended stays readable after a RESET); that goes as it is read or thrown away.
     */
    private void leaveBudgetLocked() {
        if (inBudget) {
            inBudget = false;
            long keep = Math.min(counted, received - consumed);
            table.budget().leave(counted - keep);
            counted = keep;
        }
    }

    /** Holding {@link #lock}: {@code n} more bytes were read or thrown away. */
    private void consume(long n) {
        consumed += n;
        long given = Math.min(n, counted);
        if (given > 0) {
            counted -= given;
            table.budget().release(given);
        }
    }

    /**
     * Holding {@link #lock}: raises what the other end may send to this connection's share beyond
     * what was read (the floor when the budget is spent; counted while a member); returns the raise.
     */
    private long topUp() {
        long limit = inBudget
                ? table.budget().topUp(consumed, granted)
                : table.budget().limitFor(consumed, granted);
        long raise = limit - granted;
        if (inBudget) {
            counted += raise;
        }
        granted = limit;
        return raise;
    }

    /** Holding {@link #lock}: throws away what waits unread (no one will read it) and gives its budget back. */
    private void discardInbox() {
        long n = -(long) unopened.size() * ConnectionSeal.OVERHEAD;
        for (ByteBuf b : inbox) {
            n += b.readableBytes();
            b.release();
        }
        inbox.clear();
        unopened.clear();
        consume(n);
    }

    /**
     * Holding {@link #lock}: opens the sealed head of the inbox; null if it opened, else why not
     * (bytes changed on the way, or sealed for another offset, connection or key), the inbox left as
     * it was. The sealed bytes are copied into an array and opened there: the native provider opens
     * arrays several times faster than buffers outside the heap, and the JDK's no slower.
     */
    private String openHead() {
        ByteBuf sealed = inbox.peek();
        long offset = unopened.peek();
        int sealedLength = sealed.readableBytes();
        int n = sealedLength - ConnectionSeal.OVERHEAD;
        ByteBuf plain = table.allocator().heapBuffer(sealedLength);
        try {
            plain.writeBytes(sealed, sealed.readerIndex(), sealedLength);
            seal.openInPlace(offset, plain.array(), plain.arrayOffset(), sealedLength);
            plain.writerIndex(n);
        } catch (java.security.GeneralSecurityException e) {
            plain.release();
            return "bytes " + offset + " to " + (offset + n) + " of node " + peer
                    + "'s stream failed their end-to-end check: changed on the way, or not sealed by the node";
        } catch (RuntimeException e) {
            plain.release();
            return "bytes " + offset + " to " + (offset + n) + " of node " + peer + "'s stream could not be opened: "
                    + e;
        }
        inbox.poll().release();
        unopened.poll();
        inbox.addFirst(plain);
        return null;
    }

    void ping() {
        table.send(Relay.ping(key.id(), opener, acceptor, outbound));
    }

    /** Answers a PING with this end's credit limit, which also makes up for a CREDIT lost on the way. */
    void pong(Relay ping) {
        long limit;
        lock.lock();
        try {
            limit = granted;
        } finally {
            lock.unlock();
        }
        table.send(ping.pong(limit));
    }

    /** Both streams ended: the other end's FIN arrived and this end's FIN is sent. Nothing is left to check for liveness. */
    boolean isFinishedBothWays() {
        lock.lock();
        try {
            return peerFinished && finSent && !finWaiting;
        } finally {
            lock.unlock();
        }
    }

    boolean isClosed() {
        lock.lock();
        try {
            return closed;
        } finally {
            lock.unlock();
        }
    }

    boolean isInputShutdown() {
        lock.lock();
        try {
            return inputShut || closed;
        } finally {
            lock.unlock();
        }
    }

    boolean isOutputShutdown() {
        lock.lock();
        try {
            return finSent || closed;
        } finally {
            lock.unlock();
        }
    }

    long bytesIn() {
        lock.lock();
        try {
            return bytesIn;
        } finally {
            lock.unlock();
        }
    }

    long bytesOut() {
        lock.lock();
        try {
            return bytesOut;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public String toString() {
        return "routed connection " + Long.toUnsignedString(key.id()) + " " + opener + " => " + acceptor + ":"
                + virtualPort;
    }
}
