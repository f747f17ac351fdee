package io.traverse.hub;

import static org.assertj.core.api.Assertions.assertThat;

import io.traverse.identity.NodeId;
import io.traverse.wire.Auth;
import io.traverse.wire.Challenge;
import io.traverse.wire.HubHello;
import io.traverse.wire.LinkAuthentication;
import io.traverse.wire.LinkMessage;
import io.traverse.wire.LinkRole;
import io.traverse.wire.Reject;
import io.traverse.wire.Welcome;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.util.List;

/** A hub link spoken by hand: handshake as a hub, then whatever the test sends. */
final class RawHubLink implements AutoCloseable {
    private final Socket socket;
    private final DataOutputStream out;
    private final DataInputStream in;

    private RawHubLink(Socket socket) throws IOException {
        this.socket = socket;
        this.out = new DataOutputStream(socket.getOutputStream());
        this.in = new DataInputStream(socket.getInputStream());
    }

    /** A hub named {@code name} in the test: its id is the id of the name's key ({@link TestKeys}). */
    static RawHubLink connect(Hub hub, String name) throws IOException {
        java.net.InetSocketAddress address = new java.net.InetSocketAddress(
                InetAddress.getLoopbackAddress(), hub.linkAddress().getPort());
        Socket plain = new Socket(address.getAddress(), address.getPort());
        plain.setSoTimeout(10_000);
        NodeId self = TestKeys.id(name);
        RawHubLink link = new RawHubLink(TestKeys.startTls(plain, address, LinkRole.HUB, self));
        LinkAuthentication auth = new LinkAuthentication(TestHubs.TOKEN);
        byte[] nonce = LinkAuthentication.newNonce();
        link.send(new HubHello(self, nonce, name, List.of(), 1));
        Challenge challenge = (Challenge) TestNodeClient.readFrame(link.in);
        link.send(new Auth(auth.dialerProof(nonce, challenge.serverNonce(), self, challenge.acceptorId())));
        assertThat(TestNodeClient.readFrame(link.in)).isInstanceOf(Welcome.class);
        return link;
    }

    synchronized void send(LinkMessage message) throws IOException {
        TestNodeClient.writeFrame(out, message);
    }

    /** One frame (type and payload, as {@code LinkMessageCodec.encodeToBytes} gives them), length-prefixed: for malformed input. */
    synchronized void sendFrame(byte[] body) throws IOException {
        out.writeInt(body.length);
        out.write(body);
        out.flush();
    }

    private final java.util.List<LinkMessage> received = new java.util.concurrent.CopyOnWriteArrayList<>();

    /**
     * Reads on a thread of its own from now on: answers every PING (so the hub keeps the link)
     * and keeps every other message for {@link #received}. Ends when the link closes.
     */
    RawHubLink answerPings() {
        Thread reader = new Thread(
                () -> {
                    try {
                        while (true) {
                            LinkMessage m = TestNodeClient.readFrame(in);
                            if (m instanceof io.traverse.wire.Ping ping) {
                                send(new io.traverse.wire.Pong(ping.token()));
                            } else {
                                received.add(m);
                            }
                        }
                    } catch (IOException closed) {
                        // the test closed the link, or the hub did
                    }
                },
                "raw-hub-link-reader");
        reader.setDaemon(true);
        reader.start();
        return this;
    }

    /** What the hub sent since {@link #answerPings}, PINGs left out, oldest first. */
    java.util.List<LinkMessage> received() {
        return java.util.List.copyOf(received);
    }

    /** Reads what the hub sends until it closes the link; returns the REJECT it sent before, or null. */
    Reject awaitClose() throws IOException {
        Reject reject = null;
        while (true) {
            LinkMessage m;
            try {
                m = TestNodeClient.readFrame(in);
            } catch (EOFException closed) {
                return reject;
            }
            if (m instanceof Reject r) {
                reject = r;
            }
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
