package io.traverse.hublink;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;

/**
 * A TCP relay on loopback in front of a hub or a node that keeps a copy of every byte it passes,
 * both ways: what an on-path observer of a node's links or connections would capture. An end of
 * stream is passed on as a half-close.
 */
public final class RecordingTap implements AutoCloseable {
    /** One relayed connection's bytes, each way. */
    public record Capture(ByteArrayOutputStream client, ByteArrayOutputStream server) {
        public byte[] fromClient() {
            synchronized (client) {
                return client.toByteArray();
            }
        }

        public byte[] fromServer() {
            synchronized (server) {
                return server.toByteArray();
            }
        }
    }

    private final ServerSocket listening;
    private final InetSocketAddress target;
    private final ExecutorService threads;
    private final List<Socket> open = new CopyOnWriteArrayList<>();
    private final ByteArrayOutputStream captured = new ByteArrayOutputStream();
    private final List<Capture> connections = new CopyOnWriteArrayList<>();

    public RecordingTap(InetSocketAddress target, ExecutorService threads) throws IOException {
        this.target = target;
        this.threads = threads;
        this.listening = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        threads.execute(this::acceptLoop);
    }

    public InetSocketAddress address() {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), listening.getLocalPort());
    }

    /** Each connection relayed so far, in the order they came. */
    public List<Capture> connections() {
        return List.copyOf(connections);
    }

    /** Every byte passed so far, both ways, in the order the pumps got them. */
    byte[] captured() {
        synchronized (captured) {
            return captured.toByteArray();
        }
    }

    /** Whether the capture holds {@code text}, in UTF-8. */
    boolean contains(String text) {
        return indexOf(captured(), text.getBytes(StandardCharsets.UTF_8)) >= 0;
    }

    /** Where {@code needle} first occurs in {@code haystack}, or -1. */
    public static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    private void acceptLoop() {
        while (!listening.isClosed()) {
            try {
                Socket from = listening.accept();
                Socket to = new Socket(target.getAddress(), target.getPort());
                open.add(from);
                open.add(to);
                Capture c = new Capture(new ByteArrayOutputStream(), new ByteArrayOutputStream());
                connections.add(c);
                threads.execute(() -> pump(from, to, c.client()));
                threads.execute(() -> pump(to, from, c.server()));
            } catch (IOException e) {
                return;
            }
        }
    }

    private void pump(Socket from, Socket to, ByteArrayOutputStream copy) {
        byte[] buffer = new byte[16 * 1024];
        try {
            InputStream in = from.getInputStream();
            OutputStream out = to.getOutputStream();
            for (int n; (n = in.read(buffer)) >= 0; ) {
                synchronized (captured) {
                    captured.write(buffer, 0, n);
                }
                synchronized (copy) {
                    copy.write(buffer, 0, n);
                }
                out.write(buffer, 0, n);
            }
            to.shutdownOutput(); // end of stream, passed on; the other way may go on
        } catch (IOException e) {
            try { // a side failed: both go
                from.close();
                to.close();
            } catch (IOException ignored) {
                // closing
            }
        }
    }

    @Override
    public void close() throws IOException {
        listening.close();
        for (Socket s : open) {
            s.close();
        }
    }
}
