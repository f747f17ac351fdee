package io.traverse.cli.demo;

import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.concurrent.ExecutorService;

/** Serves {@link DemoProtocol} on one server socket, a thread per connection (a demo has few). */
final class VerificationServer {
    private final ServerSocket server;
    private final ExecutorService threads;

    VerificationServer(ServerSocket server, ExecutorService threads) {
        this.server = server;
        this.threads = threads;
    }

    void start() {
        threads.execute(this::acceptLoop);
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            try {
                Socket s = server.accept();
                threads.execute(() -> serve(s));
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private static void serve(Socket socket) {
        try (socket) {
            socket.setTcpNoDelay(true);
            InputStream in = socket.getInputStream();
            OutputStream out = socket.getOutputStream();
            int command = in.read();
            switch (command) {
                case DemoProtocol.PING -> {
                    int b;
                    while ((b = in.read()) >= 0) {
                        out.write(b);
                    }
                }
                case DemoProtocol.COUNT -> {
                    byte[] buffer = new byte[256 * 1024];
                    long total = 0;
                    int n;
                    while ((n = in.read(buffer)) >= 0) {
                        total += n;
                    }
                    new DataOutputStream(out).writeLong(total);
                }
                case DemoProtocol.VERIFY -> {
                    MessageDigest sha = MessageDigest.getInstance("SHA-256");
                    byte[] buffer = new byte[256 * 1024];
                    long total = 0;
                    int n;
                    while ((n = in.read(buffer)) >= 0) {
                        sha.update(buffer, 0, n);
                        total += n;
                    }
                    DataOutputStream data = new DataOutputStream(out);
                    data.writeLong(total);
                    data.write(sha.digest());
                }
                default -> {
                    // unknown or EOF: just close
                }
            }
        } catch (IOException | NoSuchAlgorithmException e) {
            // the client went away; nothing to report on the server side of a demo
        }
    }
}
