package io.traverse.splice;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.traverse.identity.NodeId;
import io.traverse.identity.NodeIdentity;
import io.traverse.protocol.HandshakeProof;
import io.traverse.protocol.IdentityHandshake.Answer;
import io.traverse.protocol.IdentityHandshake.Kind;
import io.traverse.protocol.ProtocolException;
import io.traverse.security.IdentityKey;
import io.traverse.security.PeerSessions;
import io.traverse.spi.AttemptFailedException;
import io.traverse.spi.FailureScope;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.security.SecureRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The identity handshake on a spliced connection: the source asks as a dialler, the target judges against what the side channel said. */
@Timeout(20)
class SpliceHandshakeTest {
    private static final NodeIdentity SOURCE = NodeIdentity.parse("tv1-source");
    private static final NodeIdentity TARGET = NodeIdentity.parse("tv1-target");
    private Socket sourceEnd;
    private Socket targetEnd;

    @BeforeEach
    void connectedPair() throws IOException {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            sourceEnd = new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort());
            targetEnd = server.accept();
        }
        sourceEnd.setSoTimeout(5000);
        targetEnd.setSoTimeout(5000);
    }

    @AfterEach
    void close() throws IOException {
        sourceEnd.close();
        targetEnd.close();
    }

    /** Runs the source's side while the target reads and answers as {@code answer} says (null: as judged). */
    private SpliceHandshake.Checked exchange(
            Kind kind, int port, NodeIdentity expected, NodeId agreedSender, int agreedPort, boolean agreedProbe)
            throws Exception {
        CompletableFuture<Void> source = CompletableFuture.runAsync(() -> {
            try {
                SpliceHandshake.asSource(sourceEnd, kind, port, expected, SOURCE, false, null, null, false);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        SpliceHandshake.Checked checked =
                SpliceHandshake.readRequest(targetEnd, TARGET, agreedSender, agreedPort, agreedProbe);
        SpliceHandshake.answer(targetEnd, TARGET, checked.answer(), checked.reason());
        try {
            source.get(5, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            throw (Exception) e.getCause().getCause();
        }
        return checked;
    }

    @Test
    void theAgreedSourceIsAcceptedAndTheBytesAfterTheHandshakeBelongToTheApplication() throws Exception {
        SpliceHandshake.Checked checked =
                exchange(Kind.CONNECT, 8080, TARGET, SOURCE.id().orElseThrow(), 8080, false);
        assertThat(checked.answer()).isEqualTo(Answer.ACCEPT);
        assertThat(checked.request().source()).isEqualTo(SOURCE);
        sourceEnd.getOutputStream().write(42);
        assertThat(targetEnd.getInputStream().read()).isEqualTo(42);
    }

    @Test
    void withKeysBothEndsProveThemFullWithAFinishedThenResumedWithout() throws Exception {
        IdentityKey sourceKey = IdentityKey.generate();
        IdentityKey targetKey = IdentityKey.generate();
        PeerSessions sourceSessions = new PeerSessions(sourceKey, new SecureRandom());
        PeerSessions targetSessions = new PeerSessions(targetKey, new SecureRandom());
        NodeIdentity source = NodeIdentity.parse("tv1-" + sourceKey.id());
        NodeIdentity target = NodeIdentity.parse("tv1-" + targetKey.id());
        for (boolean hold : new boolean[] {false, true}) { // the first a full agreement, the second resumed
            try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                    Socket from = new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort());
                    Socket to = server.accept()) {
                to.setSoTimeout(5000);
                CompletableFuture<byte[]> asked = CompletableFuture.supplyAsync(() -> {
                    try {
                        return SpliceHandshake.asSource(
                                from, Kind.CONNECT, 8080, target, source, hold, sourceSessions, null, false);
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                });
                SpliceHandshake.Checked checked = SpliceHandshake.readRequest(to, target, sourceKey.id(), 8080, false);
                assertThat(checked.answer()).isEqualTo(Answer.ACCEPT);
                Object answered = SpliceHandshake.answerProof(targetSessions, sourceKey.id(), checked.request());
                assertThat(answered).isInstanceOf(HandshakeProof.Accepted.class);
                HandshakeProof.Accepted proof = (HandshakeProof.Accepted) answered;
                assertThat(proof.full()).isEqualTo(!hold);
                SpliceHandshake.acceptWithProof(to, proof, false);
                byte[] finished = asked.get(5, TimeUnit.SECONDS);
                if (hold) {
                    assertThat(finished).isEmpty(); // resumed: the offer was the proof
                    from.getOutputStream().write(1); // CONFIRM
                    assertThat(SpliceHandshake.awaitConfirm(to)).isTrue();
                } else {
                    assertThat(finished).isNull(); // sent already
                    assertThat(SpliceHandshake.awaitFinished(to, proof)).isTrue(); // before any application byte
                }
                from.getOutputStream().write(42);
                assertThat(to.getInputStream().read()).isEqualTo(42);
            }
        }
        // A request without a proof, from a source with keys expected: refused.
        NodeIdentity plain = NodeIdentity.parse("tv1-" + sourceKey.id());
        Object refused = SpliceHandshake.answerProof(
                targetSessions,
                sourceKey.id(),
                new io.traverse.protocol.IdentityHandshake.Request(Kind.CONNECT, 8080, target, plain));
        assertThat(refused).isInstanceOfSatisfying(SpliceHandshake.Checked.class, c -> {
            assertThat(c.answer()).isEqualTo(Answer.REFUSED);
            assertThat(c.reason()).contains("only with a key proof");
        });
    }

    @Test
    void anotherNodeThanTheOneThatAskedIsRefused() {
        assertThatThrownBy(() -> exchange(Kind.CONNECT, 8080, TARGET, NodeId.of("somebody-else"), 8080, false))
                .isInstanceOf(AttemptFailedException.class)
                .hasMessageContaining("refused")
                .hasMessageContaining("agreed with node somebody-else");
    }

    @Test
    void anotherPortOrKindThanAgreedIsAProtocolError() {
        assertThatThrownBy(
                        () -> exchange(Kind.CONNECT, 9090, TARGET, SOURCE.id().orElseThrow(), 8080, false))
                .isInstanceOf(AttemptFailedException.class)
                .hasMessageContaining("PROTOCOL_ERROR");
        assertThatThrownBy(
                        () -> exchange(Kind.CONNECT, 8080, TARGET, SOURCE.id().orElseThrow(), 8080, true))
                .isInstanceOf(AttemptFailedException.class)
                .hasMessageContaining("agreed as PROBE");
    }

    @Test
    void aSourceLookingForAnotherNodeHearsWrongNodeAsAPathFailure() {
        assertThatThrownBy(() -> exchange(
                        Kind.CONNECT,
                        8080,
                        NodeIdentity.parse("tv1-elsewhere"),
                        SOURCE.id().orElseThrow(),
                        8080,
                        false))
                .isInstanceOfSatisfying(
                        AttemptFailedException.class, e -> assertThat(e.scope()).isEqualTo(FailureScope.PATH))
                .hasMessageContaining("another node");
    }

    @Test
    void garbageInsteadOfAHandshakeIsAProtocolException() throws IOException {
        sourceEnd.getOutputStream().write("GET / HTTP/1.1\r\n\r\n".getBytes());
        assertThatThrownBy(() -> SpliceHandshake.readRequest(
                        targetEnd, TARGET, SOURCE.id().orElseThrow(), 8080, false))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("not a Traverse handshake");
    }
}
