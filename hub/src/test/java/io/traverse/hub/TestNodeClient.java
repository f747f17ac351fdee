package io.traverse.hub;

import io.traverse.identity.NodeId;
import io.traverse.identity.NodeIdentity;
import io.traverse.protocol.ProtocolException;
import io.traverse.security.LinkTls;
import io.traverse.wire.Auth;
import io.traverse.wire.Challenge;
import io.traverse.wire.LinkAuthentication;
import io.traverse.wire.LinkLimits;
import io.traverse.wire.LinkMessage;
import io.traverse.wire.LinkMessageCodec;
import io.traverse.wire.LinkPreamble;
import io.traverse.wire.LinkRole;
import io.traverse.wire.Lookup;
import io.traverse.wire.LookupKind;
import io.traverse.wire.LookupResult;
import io.traverse.wire.NameBind;
import io.traverse.wire.NameRelease;
import io.traverse.wire.NodeHello;
import io.traverse.wire.Ping;
import io.traverse.wire.Pong;
import io.traverse.wire.Reject;
import io.traverse.wire.Result;
import io.traverse.wire.Welcome;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A minimal node for hub tests: a blocking socket speaking the link codec, a reader thread that
 * answers PINGs and queues everything else. Not the real node-side client (that is
 * io.traverse.hublink in core).
 */
final class TestNodeClient implements AutoCloseable {
    static final Duration WAIT = Duration.ofSeconds(10);
    /** Marks the end of the stream in the inbox. */
    private static final LinkMessage CLOSED = new Reject(io.traverse.wire.RejectCode.PROTOCOL, "(stream closed)");

    private final Socket socket;
    private final DataOutputStream out;
    private final DataInputStream in;
    private final NodeId id;
    private final String identityText;
    private final BlockingQueue<LinkMessage> inbox = new LinkedBlockingQueue<>();
    private final AtomicInteger requests = new AtomicInteger();
    private Welcome welcome;
    private volatile boolean closedByPeer;

    private TestNodeClient(Socket socket, NodeId id) throws IOException {
        this.socket = socket;
        this.out = new DataOutputStream(new java.io.BufferedOutputStream(socket.getOutputStream()));
        this.in = new DataInputStream(new java.io.BufferedInputStream(socket.getInputStream()));
        this.id = id;
        this.identityText = NodeIdentity.builder()
                .id(id)
                .address(new InetSocketAddress("127.0.0.1", 40000 + Math.abs(id.hashCode() % 20000)))
                .build()
                .toText();
    }

    /** Connects and authenticates; throws {@link RejectedException} with the hub's REJECT if refused. */
    static TestNodeClient connect(InetSocketAddress hub, String token, NodeId id) throws IOException {
        return connect(hub, token, id, true);
    }

    /** With {@code answerPings} false the node reads nothing after WELCOME: a node that hangs. */
    static TestNodeClient connect(InetSocketAddress hub, String token, NodeId id, boolean answerPings)
            throws IOException {
        return connect(hub, token, id, null, answerPings);
    }

    /**
     * A node that states {@code id} in its HELLO but proves the key of the test name {@code keyName}
     * in TLS: an impostor, when {@code id} is another's.
     */
    static TestNodeClient connectWithKeyOf(Hub hub, String token, NodeId id, String keyName) throws IOException {
        return connect(loopback(hub), token, id, keyName, true);
    }

    private static TestNodeClient connect(
            InetSocketAddress hub, String token, NodeId id, String keyName, boolean answerPings) throws IOException {
        LinkTls keyTls = keyName == null ? TestKeys.tlsFor(id) : TestKeys.tlsOf(keyName);
        Socket socket = new Socket();
        socket.setTcpNoDelay(true);
        socket.connect(hub, 5000);
        socket.setSoTimeout((int) WAIT.toMillis());
        TestNodeClient client;
        try {
            client = new TestNodeClient(TestKeys.startTls(socket, hub, LinkRole.NODE, keyTls), id);
            client.handshake(token);
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
        if (answerPings) {
            client.startReader();
        }
        return client;
    }

    /** A node named {@code name} in the test: its id is the id of the name's key ({@link TestKeys}). */
    static TestNodeClient connect(Hub hub, String token, String name) throws IOException {
        return connect(loopback(hub), token, TestKeys.id(name));
    }

    static InetSocketAddress loopback(Hub hub) {
        return new InetSocketAddress("127.0.0.1", hub.linkAddress().getPort());
    }

    private void handshake(String token) throws IOException {
        LinkAuthentication auth = new LinkAuthentication(token);
        byte[] clientNonce = LinkAuthentication.newNonce();
        send(new NodeHello(id, clientNonce, identityText));
        LinkMessage challenge = readFrame();
        if (challenge instanceof Reject r) {
            throw new RejectedException(r);
        }
        Challenge c = (Challenge) challenge;
        send(new Auth(auth.dialerProof(clientNonce, c.serverNonce(), id, c.acceptorId())));
        LinkMessage answer = readFrame();
        if (answer instanceof Reject r) {
            throw new RejectedException(r);
        }
        welcome = (Welcome) answer;
        if (!auth.isValidAcceptorProof(welcome.mac(), c.serverNonce(), clientNonce, c.acceptorId(), id)) {
            throw new ProtocolException("hub proof wrong");
        }
    }

    private void startReader() {
        Thread reader = new Thread(
                () -> {
                    try {
                        while (true) {
                            LinkMessage m = readFrame();
                            if (m instanceof Ping p) {
                                send(new Pong(p.token()));
                            } else if (!(m instanceof Pong)) {
                                inbox.add(m);
                            }
                        }
                    } catch (IOException e) {
                        closedByPeer = true;
                        inbox.add(CLOSED);
                    }
                },
                "test-node-" + id);
        reader.setDaemon(true);
        reader.start();
    }

    LinkMessage readFrame() throws IOException {
        return readFrame(in);
    }

    /** The link preamble a peer in {@code role} sends first. */
    static byte[] preamble(LinkRole role) {
        return ByteBuffer.allocate(LinkPreamble.LENGTH)
                .putInt(LinkPreamble.MAGIC)
                .putShort((short) LinkPreamble.VERSION)
                .putShort((short) role.code())
                .array();
    }

    /** One length-prefixed frame from a link, decoded; lengths outside the link's bounds are refused. */
    static LinkMessage readFrame(DataInputStream in) throws IOException {
        int length = in.readInt();
        if (length < 1 || length > LinkLimits.MAX_FRAME_AFTER_AUTH) {
            throw new ProtocolException("bad frame length " + length);
        }
        byte[] frame = new byte[length];
        in.readFully(frame);
        return LinkMessageCodec.decode(frame);
    }

    synchronized void send(LinkMessage message) throws IOException {
        writeFrame(out, message);
    }

    /** One message as a length-prefixed frame, flushed. */
    static void writeFrame(DataOutputStream out, LinkMessage message) throws IOException {
        byte[] body = LinkMessageCodec.encodeToBytes(message);
        out.writeInt(body.length);
        out.write(body);
        out.flush();
    }

    /** Raw bytes, for malformed-input tests. */
    synchronized void sendRaw(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    /** The next message of a type; others that arrive first are dropped. */
    <T extends LinkMessage> T await(Class<T> type) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (true) {
            LinkMessage m = inbox.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (m == null) {
                throw new AssertionError("no " + type.getSimpleName() + " within " + WAIT);
            }
            if (m == CLOSED) {
                throw new AssertionError("link closed while waiting for " + type.getSimpleName());
            }
            if (type.isInstance(m)) {
                return type.cast(m);
            }
        }
    }

    /** The next message the reader queued (PINGs are answered, not queued), or null after {@code wait}. */
    LinkMessage poll(Duration wait) throws InterruptedException {
        LinkMessage m = inbox.poll(wait.toNanos(), TimeUnit.NANOSECONDS);
        if (m == CLOSED) {
            inbox.add(CLOSED);
            throw new AssertionError("link closed");
        }
        return m;
    }

    /** Waits until the hub closes the link; returns the REJECT it sent before, or null. */
    Reject awaitClose() throws InterruptedException {
        Reject reject = null;
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (true) {
            LinkMessage m = inbox.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (m == null) {
                throw new AssertionError("link still open after " + WAIT);
            }
            if (m == CLOSED) {
                return reject;
            }
            if (m instanceof Reject r) {
                reject = r;
            }
        }
    }

    Result bind(String name, int port) throws IOException, InterruptedException {
        int request = requests.incrementAndGet();
        send(new NameBind(request, name, port));
        Result result = await(Result.class);
        if (result.requestId() != request) {
            throw new AssertionError("answer to request " + result.requestId() + ", expected " + request);
        }
        return result;
    }

    Result release(String name) throws IOException, InterruptedException {
        int request = requests.incrementAndGet();
        send(new NameRelease(request, name));
        return await(Result.class);
    }

    LookupResult lookup(LookupKind kind, String argument) throws IOException, InterruptedException {
        int request = requests.incrementAndGet();
        send(new Lookup(request, kind, argument));
        LookupResult result = await(LookupResult.class);
        if (result.requestId() != request) {
            throw new AssertionError("answer to request " + result.requestId() + ", expected " + request);
        }
        return result;
    }

    NodeId id() {
        return id;
    }

    String identityText() {
        return identityText;
    }

    Welcome welcome() {
        return welcome;
    }

    boolean isClosedByPeer() {
        return closedByPeer;
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing a test socket
        }
    }

    /** Closes the socket with a reset, as the kernel does for a process killed with SIGKILL mid-stream. */
    void abort() {
        try {
            socket.setSoLinger(true, 0);
            socket.close();
        } catch (IOException ignored) {
            // closing a test socket
        }
    }

    /** The hub refused the link. */
    static final class RejectedException extends SocketException {
        private static final long serialVersionUID = 1L;
        final transient Reject reject;

        RejectedException(Reject reject) {
            super("rejected: " + reject.code() + " " + reject.reason());
            this.reject = reject;
        }
    }
}
