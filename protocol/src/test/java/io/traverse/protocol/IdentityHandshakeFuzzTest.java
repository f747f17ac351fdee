package io.traverse.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.traverse.identity.NodeIdentity;
import io.traverse.identity.RandomIdentities;
import io.traverse.protocol.IdentityHandshake.Answer;
import io.traverse.protocol.IdentityHandshake.Kind;
import io.traverse.protocol.IdentityHandshake.Reply;
import io.traverse.protocol.IdentityHandshake.Request;
import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Untrusted bytes: whatever arrives, decoding either yields a valid message or throws
 * {@link ProtocolException} (or, for a stream that ends early, {@link EOFException}) — never an
 * unchecked exception that would kill a handshake thread.
 */
class IdentityHandshakeFuzzTest {
    private static final int CASES = 20_000;

    @Test
    void randomBytesNeverEscapeAsAnythingButProtocolException() {
        for (int n = 0; n < CASES; n++) {
            Random r = RandomIdentities.forCase(n);
            byte[] bytes = new byte[r.nextInt(r.nextBoolean() ? 16 : 400)];
            r.nextBytes(bytes);
            if (bytes.length >= IdentityHandshake.HEADER_LENGTH && r.nextBoolean()) {
                // A plausible header so that the body decoders get exercised through the whole pipeline.
                ByteBuffer.wrap(bytes)
                        .putInt(IdentityHandshake.MAGIC)
                        .put((byte) IdentityHandshake.VERSION)
                        .put((byte) (r.nextInt(7) | (r.nextInt(3) == 0 ? IdentityHandshake.KEY_PROOF : 0)))
                        .putShort((short) (bytes.length - IdentityHandshake.HEADER_LENGTH));
            }
            exercise(bytes, n, "random");
            // The body decoders alone, with any code.
            int code = r.nextInt(8) | (r.nextInt(3) == 0 ? IdentityHandshake.KEY_PROOF : 0);
            expectOnlyProtocolException(
                    () -> IdentityHandshake.decodeRequest(code, ByteBuffer.wrap(bytes)), bytes, n, "request body");
            expectOnlyProtocolException(
                    () -> IdentityHandshake.decodeReply(code, ByteBuffer.wrap(bytes)), bytes, n, "reply body");
        }
    }

    @Test
    void mutatedValidFramesNeverEscapeAsAnythingButProtocolException() {
        for (int n = 0; n < CASES; n++) {
            Random r = RandomIdentities.forCase(n);
            byte[] valid = switch (r.nextInt(4)) {
                case 0 ->
                    IdentityHandshake.encode(new Request(
                            Kind.CONNECT,
                            RandomIdentities.port(r),
                            RandomIdentities.identity(r),
                            r.nextBoolean() ? null : RandomIdentities.identity(r)));
                case 1 ->
                    IdentityHandshake.withKeyOffer( // a request with a key offer (KEY_PROOF)
                            IdentityHandshake.encode(
                                    r.nextBoolean()
                                            ? new Request(
                                                    Kind.CONNECT,
                                                    RandomIdentities.port(r),
                                                    RandomIdentities.identity(r),
                                                    RandomIdentities.identity(r),
                                                    null,
                                                    r.nextBoolean())
                                            : new Request(
                                                    Kind.REVERSE,
                                                    RandomIdentities.port(r),
                                                    RandomIdentities.identity(r),
                                                    RandomIdentities.identity(r),
                                                    randomBytes(r, IdentityHandshake.TOKEN_LENGTH))),
                            randomBytes(r, 1 + r.nextInt(200)));
                case 2 -> IdentityHandshake.encodeAccept(r.nextBoolean(), randomBytes(r, 1 + r.nextInt(200)));
                default ->
                    IdentityHandshake.encode(new Reply(
                            Answer.values()[r.nextInt(Answer.values().length)],
                            r.nextBoolean() ? null : RandomIdentities.identity(r),
                            "reason " + r.nextInt()));
            };
            byte[] mutated = mutate(valid, r);
            exercise(mutated, n, "mutated");
        }
    }

    @Test
    void mutatedIdentityTextsFailOnlyWithIllegalArgumentException() {
        String alphabet = "tv1-.axhpz0123456789abcdefgz-.:_ \u00e9\u0000";
        for (int n = 0; n < CASES; n++) {
            Random r = RandomIdentities.forCase(n);
            StringBuilder text = new StringBuilder(RandomIdentities.identity(r).toText());
            int edits = 1 + r.nextInt(4);
            for (int i = 0; i < edits && text.length() > 0; i++) {
                int at = r.nextInt(text.length());
                switch (r.nextInt(3)) {
                    case 0 -> text.setCharAt(at, alphabet.charAt(r.nextInt(alphabet.length())));
                    case 1 -> text.deleteCharAt(at);
                    default -> text.insert(at, alphabet.charAt(r.nextInt(alphabet.length())));
                }
            }
            try {
                NodeIdentity parsed = NodeIdentity.parse(text.toString());
                assertThat(NodeIdentity.parse(parsed.toText()))
                        .as(RandomIdentities.describe(n))
                        .isEqualTo(parsed);
            } catch (IllegalArgumentException expected) {
                assertThat(expected.getMessage())
                        .as(RandomIdentities.describe(n))
                        .isNotBlank();
            } catch (RuntimeException e) {
                fail(RandomIdentities.describe(n) + ": parsing '" + text + "' threw " + e, e);
            }
        }
    }

    private static byte[] mutate(byte[] valid, Random r) {
        byte[] b = valid.clone();
        int rounds = 1 + r.nextInt(3);
        for (int i = 0; i < rounds; i++) {
            switch (r.nextInt(7)) {
                case 0 -> { // flip a bit
                    int at = r.nextInt(b.length);
                    b[at] ^= (byte) (1 << r.nextInt(8));
                }
                case 1 -> b[r.nextInt(b.length)] = (byte) r.nextInt(256); // overwrite a byte
                case 2 -> b = Arrays.copyOf(b, r.nextInt(b.length + 1)); // truncate
                case 3 -> { // append junk
                    int extra = 1 + r.nextInt(20);
                    byte[] longer = Arrays.copyOf(b, b.length + extra);
                    for (int j = b.length; j < longer.length; j++) {
                        longer[j] = (byte) r.nextInt(256);
                    }
                    b = longer;
                }
                case 4 -> { // damage a length field: the frame's or the first one inside the body
                    if (b.length >= IdentityHandshake.HEADER_LENGTH + 4) {
                        int at = r.nextBoolean() ? 6 : IdentityHandshake.HEADER_LENGTH + r.nextInt(3);
                        ByteBuffer.wrap(b).putShort(at, (short) r.nextInt(65536));
                    }
                }
                case 5 -> { // delete a byte from the body
                    if (b.length > IdentityHandshake.HEADER_LENGTH) {
                        int at =
                                IdentityHandshake.HEADER_LENGTH + r.nextInt(b.length - IdentityHandshake.HEADER_LENGTH);
                        byte[] shorter = new byte[b.length - 1];
                        System.arraycopy(b, 0, shorter, 0, at);
                        System.arraycopy(b, at + 1, shorter, at, b.length - at - 1);
                        b = shorter;
                    }
                }
                default -> { // make the frame length agree with what is there, so the body decoders see the damage
                    if (b.length >= IdentityHandshake.HEADER_LENGTH) {
                        ByteBuffer.wrap(b).putShort(6, (short) (b.length - IdentityHandshake.HEADER_LENGTH));
                    }
                }
            }
            if (b.length == 0) {
                break;
            }
        }
        return b;
    }

    /** Runs the header check and both decoders the way listener and client do. */
    private static byte[] randomBytes(Random r, int n) {
        byte[] b = new byte[n];
        r.nextBytes(b);
        return b;
    }

    private static void exercise(byte[] bytes, int n, String what) {
        if (bytes.length >= IdentityHandshake.HEADER_LENGTH) {
            expectOnlyProtocolException(
                    () -> {
                        ByteBuffer header = ByteBuffer.wrap(bytes, 0, IdentityHandshake.HEADER_LENGTH);
                        int length = IdentityHandshake.checkHeader(header);
                        assertThat(length).isBetween(0, IdentityHandshake.MAX_BODY_LENGTH);
                        int available = Math.min(length, bytes.length - IdentityHandshake.HEADER_LENGTH);
                        ByteBuffer body = ByteBuffer.wrap(bytes, IdentityHandshake.HEADER_LENGTH, available)
                                .slice();
                        Request request = IdentityHandshake.decodeRequest(IdentityHandshake.code(header), body);
                        // Whatever decodes is a valid request that encodes again.
                        Request again = IdentityHandshakeTest.decodeRequestFrame(IdentityHandshake.encode(request));
                        assertThat(again).isEqualTo(request);
                    },
                    bytes,
                    n,
                    what + " request");
        }
        try {
            Reply reply = IdentityHandshake.readReply(new ByteArrayInputStream(bytes));
            assertThat(IdentityHandshake.readReply(new ByteArrayInputStream(IdentityHandshake.encode(reply))))
                    .as(RandomIdentities.describe(n))
                    .isEqualTo(reply);
        } catch (ProtocolException | EOFException expected) {
            assertThat(expected.getMessage()).isNotBlank();
        } catch (Exception e) {
            fail(
                    RandomIdentities.describe(n) + ": readReply of " + what + " bytes "
                            + HexFormat.of().formatHex(bytes) + " threw " + e,
                    e);
        }
    }

    private interface Decoding {
        void run() throws Exception;
    }

    private static void expectOnlyProtocolException(Decoding decoding, byte[] bytes, int n, String what) {
        try {
            decoding.run();
        } catch (ProtocolException expected) {
            assertThat(expected.getMessage()).isNotBlank();
        } catch (Exception e) {
            fail(
                    RandomIdentities.describe(n) + ": decoding " + what + " bytes "
                            + HexFormat.of().formatHex(bytes) + " threw " + e,
                    e);
        }
    }
}
