package io.traverse.hub;

import io.netty.buffer.Unpooled;
import io.traverse.identity.NodeId;
import io.traverse.security.IdentityKey;
import io.traverse.security.LinkTls;
import io.traverse.wire.LinkMessage;
import io.traverse.wire.LinkPreamble;
import io.traverse.wire.LinkRole;
import io.traverse.wire.Reject;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.net.ssl.SSLSocket;

/**
 * Keys for the raw test clients: a test names its nodes and hubs ("node-a"), and each name gets a
 * key drawn from a generator seeded with the name, so the same name is the same key, and so the
 * same id, in every test. A client that states an id no name gave (an impostor) gets a key of its
 * own, whose id is not the one it states.
 */
final class TestKeys {
    private static final Map<String, IdentityKey> BY_NAME = new ConcurrentHashMap<>();
    private static final Map<NodeId, IdentityKey> BY_ID = new ConcurrentHashMap<>();
    private static final Map<NodeId, LinkTls> TLS = new ConcurrentHashMap<>();

    private TestKeys() {}

    /** The key of a test name. */
    static IdentityKey key(String name) {
        return BY_NAME.computeIfAbsent(name, n -> {
            IdentityKey key = IdentityKey.generate(seeded(n));
            BY_ID.put(key.id(), key);
            return key;
        });
    }

    /** The id of a test name: its key's. */
    static NodeId id(String name) {
        return key(name).id();
    }

    /** The TLS of whoever holds the key of {@code id}; an id no name gave gets a key that is not its own. */
    static LinkTls tlsFor(NodeId id) {
        return TLS.computeIfAbsent(id, i -> LinkTls.of(BY_ID.getOrDefault(i, IdentityKey.generate())));
    }

    private static SecureRandom seeded(String name) {
        try {
            SecureRandom random = SecureRandom.getInstance("SHA1PRNG");
            random.setSeed(("traverse test key " + name).getBytes(StandardCharsets.UTF_8));
            return random;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The TLS of the key of a test name, whatever id its holder then states. */
    static LinkTls tlsOf(String name) {
        return tlsFor(id(name));
    }

    /**
     * Opens a link as a blocking client would: our preamble, the hub's, then TLS under {@code keyTls}.
     * A refusal the hub makes before TLS (it then sends a frame in clear right behind its preamble)
     * is thrown as a {@link TestNodeClient.RejectedException}. Take the TLS ({@link #tlsFor},
     * {@link #tlsOf}) before connecting, as a real node makes its own at start: the first one of a
     * run builds a certificate, and the hub's handshake timeout runs from the connection.
     */
    static SSLSocket startTls(Socket plain, InetSocketAddress hub, LinkRole role, LinkTls keyTls) throws IOException {
        OutputStream out = plain.getOutputStream();
        out.write(TestNodeClient.preamble(role));
        out.flush();
        DataInputStream in = new DataInputStream(plain.getInputStream());
        byte[] theirs = new byte[LinkPreamble.LENGTH];
        in.readFully(theirs);
        LinkPreamble preamble = LinkPreamble.decode(Unpooled.wrappedBuffer(theirs));
        if (preamble.role() != LinkRole.HUB) {
            throw new IOException("not a hub: " + preamble);
        }
        if (in.available() > 0) {
            // A refusal comes in the same write as the preamble; TLS would have waited for our first record.
            LinkMessage m = TestNodeClient.readFrame(in);
            if (m instanceof Reject r) {
                throw new TestNodeClient.RejectedException(r);
            }
            throw new IOException("the hub sent " + m + " in clear");
        }
        SSLSocket tls = keyTls.clientSocket(plain, hub);
        tls.startHandshake();
        return tls;
    }
}
