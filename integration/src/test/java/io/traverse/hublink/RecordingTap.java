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
 * A TCP relay on loopback in front of a hub that keeps a copy of every byte it passes, both
 * ways: what an on-path observer of a node's links would capture.
 */
final class RecordingTap implements AutoCloseable {
    private final ServerSocket listening;
    private final InetSocketAddress target;
    private final ExecutorService threads;
    private final List<Socket> open = new CopyOnWriteArrayList<>();
    private final ByteArrayOutputStream captured = new ByteArrayOutputStream();

    RecordingTap(InetSocketAddress target, ExecutorService threads) throws IOException {
        this.target = target;
        this.threads = threads;
        this.listening = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        threads.execute(this::acceptLoop);
    }

    InetSocketAddress address() {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), listening.getLocalPort());
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

    static int indexOf(byte[] haystack, byte[] needle) {
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
                threads.execute(() -> pump(from, to));
                threads.execute(() -> pump(to, from));
            } catch (IOException e) {
                return;
            }
        }
    }

    private void pump(Socket from, Socket to) {
        byte[] buffer = new byte[16 * 1024];
        try (InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream()) {
            for (int n; (n = in.read(buffer)) >= 0; ) {
                synchronized (captured) {
                    captured.write(buffer, 0, n);
                }
                out.write(buffer, 0, n);
            }
        } catch (IOException e) {
            // one side closed: the other pump ends too
        } finally {
            try {
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
