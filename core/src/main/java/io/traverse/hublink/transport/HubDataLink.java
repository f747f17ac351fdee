package io.traverse.hublink.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.util.ReferenceCountUtil;
import io.traverse.identity.NodeId;
import io.traverse.protocol.ProtocolException;
import io.traverse.security.LinkTls;
import io.traverse.spi.HttpTransport;
import io.traverse.wire.Auth;
import io.traverse.wire.Challenge;
import io.traverse.wire.LinkAuthentication;
import io.traverse.wire.LinkFrameDecoder;
import io.traverse.wire.LinkLimits;
import io.traverse.wire.LinkMessage;
import io.traverse.wire.LinkMessageCodec;
import io.traverse.wire.LinkMessageEncoder;
import io.traverse.wire.LinkPreamble;
import io.traverse.wire.LinkRole;
import io.traverse.wire.NodeHello;
import io.traverse.wire.Ping;
import io.traverse.wire.Pong;
import io.traverse.wire.Reject;
import io.traverse.wire.Relay;
import io.traverse.wire.RelayEncoder;
import io.traverse.wire.Welcome;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * A node's data link to its hub: a second TCP connection beside the link, for RELAY frames (and
 * keepalives) only, read by a thread of its own and written by the application threads that send,
 * rather than by the link's event loop: a relayed write costs no hand-over to a loop. It opens
 * with the link's handshake — preamble role NODE_DATA, HELLO, the token's proof both ways — to the
 * hub the link goes to, which binds it to the node's link (docs/protocol.md, "Data links").
 *
 * <p>Reads are for one thread ({@code io.traverse.hublink.DataLinkRelay}'s reader), writes are serialised by
 * {@link #writeLock()}. The channel is non-blocking; each side waits on a selector of its own,
 * so closing wakes a reader that waits, and a deadline bounds its wait.
 * Frames are decoded as slices of the buffers read into: short ones from greedy reads, long ones
 * read straight into a buffer of their own once their length is known, so that relayed bytes are
 * not copied in user space on their way to the connection that reads them.
 */
public final class HubDataLink implements Closeable {
    /** Greedy reads go into buffers of this size. */
    private static final int CHUNK = 64 * 1024;
    /** Frames at least this long are read into a buffer of their own. */
    private static final int LONG_FRAME = 16 * 1024;

    private final SocketChannel channel;
    private final InetSocketAddress hub;
    private final ByteBufAllocator alloc;
    private final Selector readSelector;
    private final Selector writeSelector;
    private final SelectionKey writeKey;
    private final ReentrantLock writeLock = new ReentrantLock();
    /** The most frames one gathering write takes (IOV_MAX is 1024; a payload may span several buffers). */
    public static final int MAX_BATCH = 64;
    /**
     * Where the writer encodes the RELAY headers of a batch (writeLock held): one buffer for the
     * link's life rather than one per frame; its memory belongs to a JDK direct buffer, so nothing to release.
     */
    private final ByteBuf header =
            Unpooled.wrappedBuffer(ByteBuffer.allocateDirect(MAX_BATCH * RelayEncoder.HEADER_CAPACITY));
    /**
     * Where the writer copies a batch's payloads that live in the heap (sealed frames, writeLock
     * held) before a gathering write in clear. Without it the JDK copies each into a temporary
     * direct buffer that it caches per thread: up to {@link #MAX_BATCH} of them, 4 MiB for every
     * application thread that ever wrote a batch. Made at the first such payload; a JDK direct
     * buffer, so nothing to release. It holds a whole batch of full frames (a batch split into
     * writes of three 64 KiB frames measured a tenth slower), and a batch that does not fit is
     * written in parts.
     */
    private ByteBuf staging;

    private static final int STAGING_BYTES = MAX_BATCH * 64 * 1024 + 64 * 1024;

    private volatile boolean closed;
    /** TLS under the node's key, from the end of the handshake's first half on (null before). */
    private DataLinkTls tls;
    // The reading thread's (one at a time; hand-overs are ordered by NodeRelayLink's lock):
    private ByteBuf chunk;
    /** A long frame's body being read on its own (its length prefix is consumed). */
    private ByteBuf body;
    /** The last frame was long: at a frame boundary, read just the next length prefix. */
    private boolean longFrames;
    /** The last read took less than it could: wait for more before reading again (saves a read that finds nothing). */
    private boolean drained;

    private HubDataLink(SocketChannel channel, InetSocketAddress hub, ByteBufAllocator alloc) throws IOException {
        this.channel = channel;
        this.hub = hub;
        this.alloc = alloc;
        Selector r = null;
        Selector w = null;
        try {
            r = Selector.open();
            w = Selector.open();
            channel.register(r, SelectionKey.OP_READ);
            this.writeKey = channel.register(w, SelectionKey.OP_CONNECT);
        } catch (IOException | RuntimeException e) {
            if (r != null) {
                r.close();
            }
            if (w != null) {
                w.close();
            }
            throw e;
        }
        this.readSelector = r;
        this.writeSelector = w;
    }

    /**
     * Connects to the hub, through an HTTP proxy's CONNECT tunnel when {@code proxy} is not null
     * (the way the hub link went), and runs the handshake; blocks at most {@code timeoutMillis}.
     * With {@code linkTls} the data link runs TLS under the node's key; without (null), in clear,
     * bound to the hub link by its proof over that link's nonces, which travelled inside the link's TLS.
     *
     * @throws IOException if the hub cannot be reached, refuses the data link (a hub that does
     *         not know data links closes it), or is not the hub {@code hubId}
     */
    public static HubDataLink open(
            InetSocketAddress hub,
            ProxyRoute proxy,
            NodeId nodeId,
            NodeId hubId,
            String identityText,
            LinkAuthentication authentication,
            LinkTls linkTls,
            byte[] linkClientNonce,
            byte[] linkServerNonce,
            long timeoutMillis,
            ByteBufAllocator alloc)
            throws IOException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        SocketChannel channel = SocketChannel.open();
        HubDataLink link;
        try {
            channel.configureBlocking(false);
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            link = new HubDataLink(channel, hub, alloc);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
        try {
            link.handshake(
                    proxy,
                    nodeId,
                    hubId,
                    identityText,
                    authentication,
                    linkTls,
                    linkClientNonce,
                    linkServerNonce,
                    deadline,
                    timeoutMillis);
            return link;
        } catch (IOException | RuntimeException e) {
            link.closeUnread();
            throw e;
        }
    }

    private void handshake(
            ProxyRoute proxy,
            NodeId nodeId,
            NodeId hubId,
            String identityText,
            LinkAuthentication authentication,
            LinkTls linkTls,
            byte[] linkClientNonce,
            byte[] linkServerNonce,
            long deadline,
            long timeoutMillis)
            throws IOException {
        try {
            if (!channel.connect(proxy == null ? hub : proxy.address())) {
                while (!channel.finishConnect()) {
                    awaitWritable(deadline, timeoutMillis);
                }
            }
        } catch (IOException e) {
            if (proxy == null) {
                throw e;
            }
            throw new IOException("cannot reach " + proxy + " (for hub " + hub + "): " + e.getMessage(), e);
        }
        writeKey.interestOps(SelectionKey.OP_WRITE);
        if (proxy != null) {
            tunnel(proxy, deadline, timeoutMillis);
        }
        byte[] clientNonce = LinkAuthentication.newNonce();
        ByteBuf ours = LinkPreamble.current(LinkRole.NODE_DATA).encode(alloc);
        try {
            writeFully(deadline, timeoutMillis, ours.nioBuffer());
        } finally {
            ours.release();
        }
        DataLinkTls started = linkTls == null ? null : new DataLinkTls(linkTls.clientEngine(hub), channel);
        DataLinkTls.Waiter waiter = waiter(deadline, timeoutMillis);
        if (started != null) {
            started.begin(waiter);
        }
        fill(LinkPreamble.LENGTH, deadline, timeoutMillis);
        LinkPreamble preamble = LinkPreamble.decode(chunk);
        if (preamble.role() != LinkRole.HUB) {
            throw new ProtocolException(
                    "the peer at " + hub + " is not a hub (its preamble says " + preamble.role() + ")");
        }
        if (!preamble.isSupported()) {
            // A hub of another version refuses in clear: handshakeMessage throws its REJECT.
            LinkMessage refusal = handshakeMessage(deadline, timeoutMillis);
            throw new ProtocolException("hub at " + hub + " speaks link protocol version " + preamble.version()
                    + " and sent " + refusal.type());
        }
        if (started != null) {
            if (chunk.isReadable() && !isTlsRecord(chunk.getUnsignedByte(chunk.readerIndex()))) {
                LinkMessage refusal = handshakeMessage(deadline, timeoutMillis); // a refusal before TLS, in clear
                throw new ProtocolException("hub at " + hub + " sent " + refusal.type() + " in clear");
            }
            started.finish(waiter, chunk.nioBuffer());
            chunk.skipBytes(chunk.readableBytes());
            NodeId keyId = LinkTls.peerId(started.engine().getSession());
            if (!hubId.equals(keyId)) {
                throw new ProtocolException("hub at " + hub + " proved the key of " + keyId + ", not of hub " + hubId);
            }
            tls = started;
        }
        ByteBuf hello = LinkMessageEncoder.frame(new NodeHello(nodeId, clientNonce, identityText), alloc);
        try {
            writeFully(deadline, timeoutMillis, hello.nioBuffer());
        } finally {
            hello.release();
        }
        LinkMessage first = handshakeMessage(deadline, timeoutMillis);
        if (!(first instanceof Challenge challenge)) {
            throw new ProtocolException("hub at " + hub + " sent " + first.type() + " instead of CHALLENGE");
        }
        if (!challenge.acceptorId().equals(hubId)) {
            throw new ProtocolException(
                    "hub " + challenge.acceptorId() + " answered at " + hub + " instead of hub " + hubId);
        }
        ByteBuf auth = LinkMessageEncoder.frame(
                new Auth(authentication.dataLinkProof(
                        clientNonce, challenge.serverNonce(), nodeId, hubId, linkClientNonce, linkServerNonce)),
                alloc);
        try {
            writeFully(deadline, timeoutMillis, auth.nioBuffer());
        } finally {
            auth.release();
        }
        LinkMessage answer = handshakeMessage(deadline, timeoutMillis);
        if (!(answer instanceof Welcome welcome)) {
            throw new ProtocolException("hub at " + hub + " sent " + answer.type() + " instead of WELCOME");
        }
        if (!authentication.isValidAcceptorProof(welcome.mac(), challenge.serverNonce(), clientNonce, hubId, nodeId)) {
            throw new ProtocolException("hub at " + hub + " could not prove it knows the network token");
        }
    }

    /**
     * Asks the proxy for a tunnel to the hub (the transport speaks the HTTP); bytes after its answer
     * (the hub may speak first) stay in {@link #chunk} for the handshake.
     */
    private void tunnel(ProxyRoute proxy, long deadline, long timeoutMillis) throws IOException {
        HttpTransports.shared()
                .tunnel(
                        new HttpTransport.BlockingStream() {
                            @Override
                            public void write(ByteBuffer bytes) throws IOException {
                                writeFully(deadline, timeoutMillis, bytes);
                            }

                            @Override
                            public ByteBuf fill(int bytes) throws IOException {
                                HubDataLink.this.fill(bytes, deadline, timeoutMillis);
                                return chunk;
                            }
                        },
                        proxy.to(hub));
    }

    /** The next frame of the handshake; a REJECT fails with its reason. */
    private LinkMessage handshakeMessage(long deadline, long timeoutMillis) throws IOException {
        fill(LinkFrameDecoder.LENGTH_FIELD, deadline, timeoutMillis);
        long length = chunk.getUnsignedInt(chunk.readerIndex());
        if (length < 1 || length > LinkLimits.MAX_FRAME_BEFORE_AUTH) {
            throw new ProtocolException("handshake frame of " + length + " bytes from hub at " + hub);
        }
        fill(LinkFrameDecoder.LENGTH_FIELD + (int) length, deadline, timeoutMillis);
        chunk.skipBytes(LinkFrameDecoder.LENGTH_FIELD);
        ByteBuf frame = chunk.readSlice((int) length);
        LinkMessage m = LinkMessageCodec.decode(frame);
        if (m instanceof Reject r) {
            throw new IOException("hub at " + hub + " refused the data link: " + r.code()
                    + (r.reason().isEmpty() ? "" : " (" + r.reason() + ")"));
        }
        return m;
    }

    private static boolean isTlsRecord(int firstByte) {
        return firstByte == 0x16 || firstByte == 0x15; // handshake or alert; a frame in clear starts with 0
    }

    private DataLinkTls.Waiter waiter(long deadline, long timeoutMillis) {
        return new DataLinkTls.Waiter() {
            @Override
            public void awaitReadable() throws IOException {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new SocketTimeoutException("hub at " + hub
                            + " did not complete the data link handshake within " + timeoutMillis + " ms");
                }
                select(readSelector, Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
            }

            @Override
            public void awaitWritable() throws IOException {
                HubDataLink.this.awaitWritable(deadline, timeoutMillis);
            }
        };
    }

    /** Reads until {@code bytes} are buffered in {@link #chunk}. */
    private void fill(int bytes, long deadline, long timeoutMillis) throws IOException {
        while (chunk == null || chunk.readableBytes() < bytes) {
            int n = readSome();
            if (n > 0) {
                continue;
            }
            if (n < 0) {
                throw new EOFException("hub at " + hub + " closed the connection in the data link handshake"
                        + " (a hub that does not know data links does so)");
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new SocketTimeoutException(
                        "hub at " + hub + " did not complete the data link handshake within " + timeoutMillis + " ms");
            }
            select(readSelector, Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
        }
    }

    private void awaitWritable(long deadline, long timeoutMillis) throws IOException {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
            throw new SocketTimeoutException("cannot reach hub at " + hub + " within " + timeoutMillis + " ms");
        }
        select(writeSelector, Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
    }

    /** Waits on a selector (0: until woken); a link closed meanwhile fails. */
    private void select(Selector selector, long millis) throws IOException {
        try {
            selector.select(millis);
            selector.selectedKeys().clear();
        } catch (java.nio.channels.ClosedSelectorException e) {
            closed = true;
        }
        if (closed) {
            throw new IOException("the data link to hub at " + hub + " is closed");
        }
    }

    /** Writes everything within the handshake's deadline. */
    private void writeFully(long deadline, long timeoutMillis, ByteBuffer... buffers) throws IOException {
        if (tls != null) {
            tls.write(buffers, waiter(deadline, timeoutMillis));
            return;
        }
        long left = 0;
        for (ByteBuffer b : buffers) {
            left += b.remaining();
        }
        while (left > 0) {
            long n = channel.write(buffers);
            left -= n;
            if (n == 0) {
                awaitWritable(deadline, timeoutMillis);
            }
        }
    }

    // ---- reading (one thread at a time) -----------------------------------------------------

    /**
     * Reads what the hub sent and hands out every whole message (RELAY, PING, PONG or REJECT), waiting
     * for bytes until the deadline (0: none) or {@link #close()}.
     *
     * @return the number of messages handed out; 0 if the wait ended without one
     * @throws IOException if the link broke, the hub closed it or sent what a data link does not carry
     */
    public int read(long deadlineNanos, Consumer<LinkMessage> sink) throws IOException {
        boolean waited = false;
        while (true) {
            int handed = decode(sink);
            if (handed > 0) {
                return handed;
            }
            if (!drained) {
                int n = readSome();
                if (n > 0) {
                    continue;
                }
                if (n < 0) {
                    throw new EOFException("hub at " + hub + " closed the data link");
                }
            }
            if (waited) {
                return 0;
            }
            long waitMillis = 0;
            if (deadlineNanos != 0) {
                long left = deadlineNanos - System.nanoTime();
                if (left <= 0) {
                    return 0;
                }
                waitMillis = Math.max(1, (left + 999_999) / 1_000_000);
            }
            select(readSelector, waitMillis);
            waited = true;
            drained = false;
        }
    }

    /** Hands out the whole messages buffered. */
    private int decode(Consumer<LinkMessage> sink) throws ProtocolException {
        int handed = 0;
        if (body != null) {
            if (body.isWritable()) {
                return 0;
            }
            ByteBuf frame = body;
            body = null;
            longFrames = true;
            handed += handOut(frame, sink);
        }
        while (chunk != null && chunk.readableBytes() >= LinkFrameDecoder.LENGTH_FIELD) {
            if (closed) {
                // Ended while handing out (a REJECT): what follows is nobody's.
                return handed;
            }
            int at = chunk.readerIndex();
            long length = chunk.getUnsignedInt(at);
            if (length < 1 || length > LinkLimits.MAX_FRAME_AFTER_AUTH) {
                throw new ProtocolException("frame of " + length + " bytes on the data link (at most "
                        + LinkLimits.MAX_FRAME_AFTER_AUTH + ")");
            }
            int whole = LinkFrameDecoder.LENGTH_FIELD + (int) length;
            if (chunk.readableBytes() >= whole) {
                ByteBuf frame = chunk.retainedSlice(at + LinkFrameDecoder.LENGTH_FIELD, (int) length);
                chunk.skipBytes(whole);
                longFrames = length >= LONG_FRAME;
                handed += handOut(frame, sink);
                continue;
            }
            if (length >= LONG_FRAME || chunk.capacity() - at < whole) {
                // Read the rest straight into a buffer of its own (copying only what came with the last read).
                chunk.skipBytes(LinkFrameDecoder.LENGTH_FIELD);
                body = alloc.directBuffer((int) length, (int) length);
                body.writeBytes(chunk);
            }
            break;
        }
        return handed;
    }

    private static int handOut(ByteBuf frame, Consumer<LinkMessage> sink) throws ProtocolException {
        LinkMessage m;
        try {
            m = LinkMessageCodec.decode(frame);
        } finally {
            frame.release();
        }
        if (!(m instanceof Relay) && !(m instanceof Ping) && !(m instanceof Pong) && !(m instanceof Reject)) {
            ReferenceCountUtil.release(m);
            throw new ProtocolException(m.type() + " on a data link (it carries RELAY frames only)");
        }
        sink.accept(m);
        return 1;
    }

    /** One non-blocking read into the buffer the next bytes belong in; -1 at the end of the stream. */
    private int readSome() throws IOException {
        ByteBuf target;
        int max;
        if (body != null) {
            target = body;
            max = body.writableBytes();
        } else {
            if (chunk == null || !chunk.isWritable()) {
                ByteBuf next = alloc.directBuffer(CHUNK, CHUNK);
                if (chunk != null) {
                    next.writeBytes(chunk);
                    chunk.release();
                }
                chunk = next;
            }
            target = chunk;
            max = chunk.writableBytes();
            if (longFrames && chunk.readableBytes() < LinkFrameDecoder.LENGTH_FIELD) {
                max = Math.min(max, LinkFrameDecoder.LENGTH_FIELD - chunk.readableBytes());
            }
        }
        ByteBuffer into = target.internalNioBuffer(target.writerIndex(), max);
        int n = tls == null ? channel.read(into) : tls.read(into);
        if (n > 0) {
            target.writerIndex(target.writerIndex() + n);
        }
        drained = n < max;
        return n;
    }

    // ---- writing (holding writeLock) --------------------------------------------------------

    /** Held while a frame is written, so that frames are whole on the wire. */
    public ReentrantLock writeLock() {
        return writeLock;
    }

    /**
     * Writes a batch of frames — {@link Relay} frames and other {@link LinkMessage}s, at most
     * {@link #MAX_BATCH} — in one gathering write, and releases them; blocks while the hub does
     * not read. One system call for many frames is what lets a thousand application threads share
     * one link (one write per frame under a contended lock queued them for 100 ms).
     */
    public void write(java.util.List<Object> batch) throws IOException {
        if (batch.size() > MAX_BATCH) {
            throw new IllegalArgumentException("at most " + MAX_BATCH + " frames in a batch, not " + batch.size());
        }
        java.util.List<ByteBuffer> parts = new java.util.ArrayList<>(batch.size() * 2);
        java.util.List<ByteBuf> encoded = new java.util.ArrayList<>(0);
        ByteBuf headers = this.header.clear();
        try {
            for (Object m : batch) {
                if (m instanceof Relay frame) {
                    int start = headers.writerIndex();
                    RelayEncoder.header(frame, headers);
                    parts.add(headers.nioBuffer(start, headers.writerIndex() - start));
                    ByteBuf payload = frame.payload();
                    int n = payload.readableBytes();
                    if (n > 0 && tls == null && !payload.isDirect() && n <= STAGING_BYTES) {
                        ByteBuf stage = staging();
                        if (stage.writableBytes() < n) {
                            writeFully(parts.toArray(new ByteBuffer[0])); // the batch so far, in order
                            parts.clear();
                            stage.clear();
                        }
                        int at = stage.writerIndex();
                        stage.writeBytes(payload, payload.readerIndex(), n);
                        parts.add(stage.nioBuffer(at, n));
                    } else if (n > 0) {
                        java.util.Collections.addAll(parts, payload.nioBuffers());
                    }
                } else {
                    ByteBuf frame = LinkMessageEncoder.frame((LinkMessage) m, alloc);
                    encoded.add(frame);
                    parts.add(frame.nioBuffer());
                }
            }
            writeFully(parts.toArray(new ByteBuffer[0]));
        } finally {
            if (staging != null) {
                staging.clear();
            }
            for (Object m : batch) {
                ReferenceCountUtil.release(m);
            }
            for (ByteBuf b : encoded) {
                b.release();
            }
        }
    }

    /** Holding writeLock: the staging buffer, made at first use. */
    private ByteBuf staging() {
        if (staging == null) {
            staging = Unpooled.wrappedBuffer(ByteBuffer.allocateDirect(STAGING_BYTES))
                    .clear();
        }
        return staging;
    }

    /**
     * Writes everything, waiting while the hub does not read. An interrupt does not end the wait
     * (as with a kernel socket's blocking write, and a frame half written would break the link);
     * the thread's interrupt status is kept for afterwards.
     */
    private void writeFully(ByteBuffer[] buffers) throws IOException {
        if (tls != null) {
            boolean[] interrupted = {false};
            try {
                tls.write(buffers, new DataLinkTls.Waiter() {
                    @Override
                    public void awaitReadable() {
                        throw new IllegalStateException("a data link write does not read");
                    }

                    @Override
                    public void awaitWritable() throws IOException {
                        interrupted[0] |= Thread.interrupted(); // as below: or an interrupted select would spin
                        select(writeSelector, 0);
                    }
                });
            } finally {
                if (interrupted[0] || Thread.interrupted()) {
                    Thread.currentThread().interrupt();
                }
            }
            return;
        }
        long left = 0;
        for (ByteBuffer b : buffers) {
            left += b.remaining();
        }
        boolean interrupted = false;
        try {
            while (left > 0) {
                long n = channel.write(buffers);
                left -= n;
                if (n == 0) {
                    // An interrupted thread's select returns at once: clear it, or this would spin.
                    interrupted |= Thread.interrupted();
                    select(writeSelector, 0);
                }
            }
        } finally {
            if (interrupted || Thread.interrupted()) {
                Thread.currentThread().interrupt();
            }
        }
    }

    public InetSocketAddress hub() {
        return hub;
    }

    public boolean isClosed() {
        return closed;
    }

    /** Closes the connection and wakes whoever waits on it. Buffers go when the reading thread is done with them. */
    @Override
    public void close() {
        closed = true;
        try {
            channel.close();
        } catch (IOException e) {
            // Closing: nothing to do about it.
        }
        readSelector.wakeup();
        writeSelector.wakeup();
        try {
            readSelector.close();
        } catch (IOException e) {
            // idem
        }
        try {
            writeSelector.close();
        } catch (IOException e) {
            // idem
        }
    }

    /** Closes a link nobody reads (yet): the connection and the buffers the handshake read into. */
    public void closeUnread() {
        close();
        releaseBuffers();
    }

    /** Frees the read buffers; by the reading thread, after the link is closed. */
    public synchronized void releaseBuffers() {
        if (chunk != null) {
            chunk.release();
            chunk = null;
        }
        if (body != null) {
            body.release();
            body = null;
        }
    }
}
