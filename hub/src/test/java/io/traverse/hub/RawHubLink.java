package io.traverse.hub;

import static org.assertj.core.api.Assertions.assertThat;

import io.traverse.identity.NodeId;
import io.traverse.security.LinkTls;
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
        return connect(hub, TestKeys.id(name), name);
    }

    /**
     * A hub that states {@code id} in its HELLO but proves the key of the test name {@code keyName}
     * in TLS: an impostor, when {@code id} is another's. A REJECT instead of the CHALLENGE or the
     * WELCOME is thrown as a {@link TestNodeClient.RejectedException}.
     */
    static RawHubLink connect(Hub hub, NodeId id, String keyName) throws IOException {
        LinkTls keyTls = TestKeys.tlsOf(keyName);
        java.net.InetSocketAddress address = new java.net.InetSocketAddress(
                InetAddress.getLoopbackAddress(), hub.linkAddress().getPort());
        Socket plain = new Socket(address.getAddress(), address.getPort());
        plain.setSoTimeout(10_000);
        RawHubLink link;
        try {
            link = new RawHubLink(TestKeys.startTls(plain, address, LinkRole.HUB, keyTls));
        } catch (IOException | RuntimeException e) {
            plain.close();
            throw e;
        }
        try {
            LinkAuthentication auth = new LinkAuthentication(TestHubs.TOKEN);
            byte[] nonce = LinkAuthentication.newNonce();
            link.send(new HubHello(id, nonce, keyName, List.of(), 1));
            Challenge challenge = link.expect(Challenge.class);
            link.send(new Auth(auth.dialerProof(nonce, challenge.serverNonce(), id, challenge.acceptorId())));
            link.expect(Welcome.class);
            return link;
        } catch (IOException | RuntimeException e) {
            link.close();
            throw e;
        }
    }

    /** The next frame, which must be a {@code type}; a REJECT is thrown as the hub's refusal. */
    private <T extends LinkMessage> T expect(Class<T> type) throws IOException {
        LinkMessage m = TestNodeClient.readFrame(in);
        if (m instanceof Reject r) {
            throw new TestNodeClient.RejectedException(r);
        }
        assertThat(m).isInstanceOf(type);
        return type.cast(m);
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
