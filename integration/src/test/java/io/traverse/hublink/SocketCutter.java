package io.traverse.hublink;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP relay on loopback in front of a hub whose connections can all be cut at once with a
 * reset, as a restarting proxy or a dropped connection would: for testing that long-poll sessions
 * survive their HTTP connections.
 */
final class SocketCutter implements AutoCloseable {
    private final ServerSocket listening;
    private final InetSocketAddress target;
    private final ExecutorService threads;
    private final List<Socket> open = new CopyOnWriteArrayList<>();
    private final AtomicInteger cut = new AtomicInteger();

    SocketCutter(InetSocketAddress target, ExecutorService threads) throws IOException {
        this.target = target;
        this.threads = threads;
        this.listening = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        threads.execute(this::acceptLoop);
    }

    InetSocketAddress address() {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), listening.getLocalPort());
    }

    /** Resets every connection through the relay; returns how many it cut. */
    int cutAll() {
        int n = 0;
        for (Socket s : open) {
            try {
                s.setSoLinger(true, 0);
                s.close();
                n++;
            } catch (IOException e) {
                // already gone
            }
            open.remove(s);
        }
        cut.addAndGet(n);
        return n;
    }

    int cuts() {
        return cut.get();
    }

    private void acceptLoop() {
        while (!listening.isClosed()) {
            try {
                Socket client = listening.accept();
                Socket server = new Socket(target.getAddress(), target.getPort());
                open.add(client);
                open.add(server);
                threads.execute(() -> pump(client, server));
                threads.execute(() -> pump(server, client));
            } catch (IOException e) {
                return;
            }
        }
    }

    private void pump(Socket from, Socket to) {
        byte[] buffer = new byte[64 * 1024];
        try (InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream()) {
            int n;
            while ((n = in.read(buffer)) >= 0) {
                out.write(buffer, 0, n);
            }
        } catch (IOException e) {
            // cut, or the other side closed
        } finally {
            try {
                from.close();
                to.close();
            } catch (IOException e) {
                // closing anyway
            }
            open.remove(from);
            open.remove(to);
        }
    }

    @Override
    public void close() throws IOException {
        listening.close();
        cutAll();
    }
}
