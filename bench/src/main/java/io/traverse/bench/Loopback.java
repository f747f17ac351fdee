package io.traverse.bench;

import io.traverse.Traverse;
import io.traverse.TraverseConfig;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;

/** Shared set-up for the loopback benchmarks: nodes, plain server sockets, socket options, threads. */
final class Loopback {
    static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    /** Accept backlog of every benchmark server socket, plain or Traverse. */
    static final int BACKLOG = 1024;

    private Loopback() {}

    /** A Traverse node listening on 127.0.0.1 only, as the benchmarks are specified. */
    static Traverse startNode() throws IOException {
        return Traverse.start(TraverseConfig.builder().bind("127.0.0.1").build());
    }

    /** A plain server socket on 127.0.0.1, any port, with a backlog large enough for connect storms. */
    static ServerSocket plainServer() throws IOException {
        return new ServerSocket(0, BACKLOG, LOOPBACK);
    }

    /** The options every benchmark socket gets, plain or Traverse alike. */
    static Socket tune(Socket s) throws IOException {
        s.setTcpNoDelay(true);
        return s;
    }

    /** Runs {@code body} on a daemon thread (the one server thread of each benchmark). */
    static Thread serverThread(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    static void closeQuietly(Closeable c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (IOException ignored) {
            // tearing down: nothing to do
        }
    }

    static void join(Thread t) {
        if (t == null) {
            return;
        }
        try {
            t.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
