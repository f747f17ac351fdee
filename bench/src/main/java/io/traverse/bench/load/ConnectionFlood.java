package io.traverse.bench.load;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Abusive clients on loopback, for flood tests: many connections that say nothing, or that send a
 * script one byte at a time (slowloris), each from one of a few loopback source addresses
 * (127.0.0.x, so that per-address limits can be told apart from the test's real nodes on
 * 127.0.0.1). One selector thread watches them all and records when the server closed each (end
 * of stream or reset); a connection the server closes is closed here too, so the flood holds only
 * what the server holds. (The same as the integration tests' {@code HubFloodTest} uses: integration
 * does not depend on bench.)
 */
final class ConnectionFlood implements AutoCloseable {
    /** One kind of abusive connection, with its own counts. */
    static final class Kind {
        final String name;
        final InetSocketAddress target;
        final byte[] script;
        final long byteIntervalNanos;
        final AtomicLong opened = new AtomicLong();
        final AtomicLong failed = new AtomicLong();
        final AtomicLong closedByServer = new AtomicLong();
        /** The longest a connection lived before the server closed it. */
        final AtomicLong longestNanos = new AtomicLong();

        /** @param script bytes sent one at a time, {@code byteInterval} apart (empty: an idle connection) */
        Kind(String name, InetSocketAddress target, byte[] script, long byteIntervalMillis) {
            this.name = name;
            this.target = target;
            this.script = script;
            this.byteIntervalNanos = TimeUnit.MILLISECONDS.toNanos(byteIntervalMillis);
        }

        long open() {
            return opened.get() - closedByServer.get();
        }

        @Override
        public String toString() {
            return name + ": " + opened + " opened, " + failed + " failed to open, " + closedByServer
                    + " closed by the server (longest lived " + TimeUnit.NANOSECONDS.toMillis(longestNanos.get())
                    + " ms), " + open() + " open";
        }
    }

    private static final class Connection {
        final Kind kind;
        final SocketChannel channel;
        final long openedNanos;
        int sent;
        long nextByteNanos;

        Connection(Kind kind, SocketChannel channel, long openedNanos) {
            this.kind = kind;
            this.channel = channel;
            this.openedNanos = openedNanos;
            this.nextByteNanos = openedNanos;
        }
    }

    private final Selector selector;
    private final Thread watcher;
    private final ConcurrentLinkedQueue<Connection> arriving = new ConcurrentLinkedQueue<>();
    /** Watcher thread only. */
    private final List<Connection> slow = new ArrayList<>();

    private volatile boolean closed;

    ConnectionFlood() throws IOException {
        this.selector = Selector.open();
        this.watcher = new Thread(this::watch, "connection-flood");
        watcher.setDaemon(true);
        watcher.start();
    }

    /**
     * Opens a connection of {@code kind} from {@code source} (port chosen by the kernel). A
     * connect that fails is counted, not thrown: a server under a flood may refuse some.
     */
    void open(Kind kind, InetAddress source) {
        SocketChannel channel = null;
        try {
            channel = SocketChannel.open();
            channel.setOption(StandardSocketOptions.SO_LINGER, 0); // our close resets: no TIME_WAIT pile-up
            channel.bind(new InetSocketAddress(source, 0));
            channel.connect(kind.target);
            channel.configureBlocking(false);
        } catch (IOException e) {
            kind.failed.incrementAndGet();
            if (channel != null) {
                try {
                    channel.close();
                } catch (IOException ignored) {
                    // counted as failed already
                }
            }
            return;
        }
        kind.opened.incrementAndGet();
        arriving.add(new Connection(kind, channel, System.nanoTime()));
        selector.wakeup();
    }

    /** The loopback address {@code 127.0.0.<last>}. */
    static InetAddress loopback(int last) {
        try {
            return InetAddress.getByAddress(new byte[] {127, 0, 0, (byte) last});
        } catch (IOException e) {
            throw new IllegalArgumentException(e);
        }
    }

    private void watch() {
        ByteBuffer buffer = ByteBuffer.allocate(4096);
        ByteBuffer one = ByteBuffer.allocate(1);
        while (!closed) {
            try {
                selector.select(20);
                for (Connection c = arriving.poll(); c != null; c = arriving.poll()) {
                    c.channel.register(selector, SelectionKey.OP_READ, c);
                    if (c.kind.script.length > 0) {
                        slow.add(c);
                    }
                }
                long now = System.nanoTime();
                for (SelectionKey key : selector.selectedKeys()) {
                    Connection c = (Connection) key.attachment();
                    int n;
                    try {
                        buffer.clear();
                        n = c.channel.read(buffer);
                    } catch (IOException reset) {
                        n = -1;
                    }
                    if (n < 0) {
                        serverClosed(c, key, now);
                    }
                }
                selector.selectedKeys().clear();
                for (int i = slow.size() - 1; i >= 0; i--) {
                    Connection c = slow.get(i);
                    if (!c.channel.isOpen()) {
                        slow.remove(i);
                    } else if (now - c.nextByteNanos >= 0 && c.sent < c.kind.script.length) {
                        one.clear();
                        one.put(c.kind.script[c.sent++]).flip();
                        try {
                            c.channel.write(one);
                        } catch (IOException reset) {
                            serverClosed(c, c.channel.keyFor(selector), now);
                            slow.remove(i);
                            continue;
                        }
                        c.nextByteNanos = now + c.kind.byteIntervalNanos;
                    }
                }
            } catch (IOException | RuntimeException e) {
                if (!closed) {
                    throw new IllegalStateException("flood watcher failed", e);
                }
            }
        }
    }

    private static void serverClosed(Connection c, SelectionKey key, long now) {
        if (key != null) {
            key.cancel();
        }
        if (!c.channel.isOpen()) {
            return;
        }
        long lived = now - c.openedNanos;
        c.kind.longestNanos.accumulateAndGet(lived, Math::max);
        c.kind.closedByServer.incrementAndGet();
        try {
            c.channel.close();
        } catch (IOException ignored) {
            // closed by the server already
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        selector.wakeup();
        try {
            watcher.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (SelectionKey key : selector.keys()) {
            key.channel().close();
        }
        for (Connection c = arriving.poll(); c != null; c = arriving.poll()) {
            c.channel.close();
        }
        selector.close();
    }
}
