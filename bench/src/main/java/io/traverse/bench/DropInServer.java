package io.traverse.bench;

import io.traverse.Traverse;
import io.traverse.TraverseConfig;
import io.traverse.TraverseServerSocketFactory;
import io.traverse.VirtualSocketAddress;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;

/**
 * The server process of {@link DropInSetupRounds}: three listeners that write one byte to every
 * connection they accept and close it. Prints one line per listener, {@code NAME HOST PORT}, then
 * {@code ready}; exits when its standard input closes (the runner ends or dies).
 * <ul>
 *   <li>{@code plain}: {@code new ServerSocket(0)} (every interface);</li>
 *   <li>{@code default}: {@code new TraverseServerSocketFactory().createServerSocket(0)}, the
 *       default node with the default configuration (every interface);</li>
 *   <li>{@code single}: a node started with {@code bind("127.0.0.1")}, as {@link ConnectSetup} uses;</li>
 *   <li>{@code handshake}: {@code new ServerSocket(0)} that first reads a request of
 *       {@link #HANDSHAKE_REQUEST} bytes and answers {@link #HANDSHAKE_REPLY} bytes: plain TCP plus
 *       one request-and-reply round trip, the floor of any protocol with a handshake.</li>
 * </ul>
 */
public final class DropInServer {
    /** The handshake contender's request, about a Traverse identity handshake's. */
    static final int HANDSHAKE_REQUEST = 256;
    /** Its reply, as long as Traverse's ACCEPT. */
    static final int HANDSHAKE_REPLY = 8;

    private DropInServer() {}

    public static void main(String[] args) throws IOException {
        ServerSocket plain = new ServerSocket(0);
        ServerSocket defaultNode = new TraverseServerSocketFactory().createServerSocket(0);
        Traverse singleNode =
                Traverse.start(TraverseConfig.builder().bind("127.0.0.1").build());
        ServerSocket single = singleNode.serverSocketFactory().createServerSocket(0);
        serve(plain);
        serve(defaultNode);
        serve(single);
        ServerSocket handshake = new ServerSocket(0);
        Loopback.serverThread("dropin-acceptor", () -> {
            byte[] request = new byte[HANDSHAKE_REQUEST];
            byte[] reply = new byte[HANDSHAKE_REPLY];
            while (!handshake.isClosed()) {
                try (Socket s = handshake.accept()) {
                    new java.io.DataInputStream(s.getInputStream()).readFully(request);
                    s.getOutputStream().write(reply);
                    s.getOutputStream().write(1);
                } catch (IOException e) {
                    // a client gone early, or closing: the loop condition decides
                }
            }
        });
        System.out.println("plain 127.0.0.1 " + plain.getLocalPort());
        VirtualSocketAddress d = (VirtualSocketAddress) defaultNode.getLocalSocketAddress();
        System.out.println("default " + d.getHostString() + " " + d.getPort());
        VirtualSocketAddress s = (VirtualSocketAddress) single.getLocalSocketAddress();
        System.out.println("single " + s.getHostString() + " " + s.getPort());
        System.out.println("handshake 127.0.0.1 " + handshake.getLocalPort());
        System.out.println("ready");
        System.out.flush();
        byte[] sink = new byte[256];
        while (System.in.read(sink) >= 0) {
            // keep serving until the runner closes our standard input
        }
        Loopback.closeQuietly(plain);
        Loopback.closeQuietly(defaultNode);
        Loopback.closeQuietly(single);
        Loopback.closeQuietly(handshake);
        singleNode.close();
    }

    private static void serve(ServerSocket listener) {
        Loopback.serverThread("dropin-acceptor", () -> {
            while (!listener.isClosed()) {
                try (Socket s = listener.accept()) {
                    s.getOutputStream().write(1);
                } catch (IOException e) {
                    // a client gone early, or closing: the loop condition decides
                }
            }
        });
    }
}
