package io.traverse.direct;

import static org.assertj.core.api.Assertions.assertThat;

import io.traverse.identity.NodeIdentity;
import io.traverse.protocol.Deadline;
import io.traverse.protocol.HandshakeProof;
import io.traverse.protocol.IdentityHandshake;
import io.traverse.security.IdentityKey;
import io.traverse.security.PeerSessions;
import io.traverse.spi.ConnectOptions;
import io.traverse.spi.ConnectRequest;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The key proof's offer is made before the TCP connect, but whether the CONNECT is held is decided
 * when the request goes out: a rival that starts in between must get a held request with an offer
 * made for it, or the listener, expecting no CONFIRM, reads it as part of the Finished (seen in
 * the seven-site matrix as cold direct connections closed with "Finished is wrong").
 */
class EarlyKeyOfferTest {
    @Test
    void aRivalThatStartsAfterTheEarlyOfferGetsAHeldRequestThatProvesItself() throws Exception {
        IdentityKey clientKey = IdentityKey.generate();
        IdentityKey listenerKey = IdentityKey.generate();
        PeerSessions listener = new PeerSessions(listenerKey, new SecureRandom());
        NodeIdentity target = NodeIdentity.parse("tv1-" + listenerKey.id());
        NodeIdentity source = NodeIdentity.parse("tv1-" + clientKey.id());
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            ConnectRequest request =
                    new ConnectRequest(target, 80, Deadline.after(Duration.ofSeconds(10)), ConnectOptions.NONE);
            byte[] handshake = IdentityHandshake.encode(
                    new IdentityHandshake.Request(IdentityHandshake.Kind.CONNECT, 80, target, source));
            HandshakeAttempt attempt = new HandshakeAttempt(
                    new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort()),
                    request,
                    ConnectOptions.NONE,
                    handshake,
                    new WorkingAddresses());
            attempt.keyProof = new KeyProver(new PeerSessions(clientKey, new SecureRandom()), listenerKey.id());
            // After the early offer and the connect, before the request goes out: a rival starts.
            attempt.beforeHandshake = () -> request.rivals().appeared();
            CompletableFuture<Socket> dialled = CompletableFuture.supplyAsync(() -> {
                try {
                    return attempt.run();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            try (Socket in = server.accept()) {
                in.setSoTimeout(5_000);
                DataInputStream from = new DataInputStream(in.getInputStream());
                byte[] header = new byte[IdentityHandshake.HEADER_LENGTH];
                from.readFully(header);
                byte[] body = new byte[IdentityHandshake.checkHeader(ByteBuffer.wrap(header))];
                from.readFully(body);
                IdentityHandshake.Request got = IdentityHandshake.decodeRequest(
                        IdentityHandshake.code(ByteBuffer.wrap(header)), ByteBuffer.wrap(body));
                assertThat(got.holdUntilConfirmed())
                        .as("the request as it went out is held")
                        .isTrue();
                HandshakeProof.Accepted proof = HandshakeProof.answer(listener, clientKey.id(), got);
                assertThat(proof.full()).isTrue();
                in.getOutputStream().write(IdentityHandshake.encodeAccept(false, proof.answer()));
                Socket out = dialled.get(10, TimeUnit.SECONDS);
                attempt.confirm();
                byte[] tail = new byte[1 + HandshakeProof.FINISHED_LENGTH];
                from.readFully(tail);
                assertThat(tail[0]).isEqualTo((byte) IdentityHandshake.CONFIRM);
                assertThat(proof.checkFinished(Arrays.copyOfRange(tail, 1, tail.length)))
                        .as("the Finished checks after CONFIRM")
                        .isTrue();
                out.getOutputStream().write(42);
                assertThat(from.read()).isEqualTo(42);
                out.close();
            }
        }
    }
}
