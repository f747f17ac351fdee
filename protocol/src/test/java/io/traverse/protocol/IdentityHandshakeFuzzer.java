package io.traverse.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.traverse.protocol.IdentityHandshake.Reply;
import io.traverse.protocol.IdentityHandshake.Request;
import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.util.Arrays;

/**
 * Coverage-guided fuzzing of the identity handshake, read as a listener reads a request and as a
 * client reads a reply (from a stream and from a channel): a valid message or
 * {@link ProtocolException}, or {@link EOFException} for bytes that end early; never an unchecked
 * exception that would kill a handshake thread. A decoded message encodes to bytes that decode to
 * the same message. Seeds: requests of each kind and replies of each answer.
 */
class IdentityHandshakeFuzzer {
    @FuzzTest(maxDuration = "10m")
    void message(byte[] bytes) throws IOException {
        readReply(bytes);
        if (bytes.length < IdentityHandshake.HEADER_LENGTH) {
            return;
        }
        ByteBuffer header = ByteBuffer.wrap(bytes, 0, IdentityHandshake.HEADER_LENGTH);
        int length;
        try {
            length = IdentityHandshake.checkHeader(header);
        } catch (ProtocolException e) {
            assertThat(e.getMessage()).isNotBlank();
            return;
        }
        int code = IdentityHandshake.code(header);
        byte[] body = Arrays.copyOfRange(
                bytes,
                IdentityHandshake.HEADER_LENGTH,
                Math.min(bytes.length, IdentityHandshake.HEADER_LENGTH + length));
        try {
            Request request = IdentityHandshake.decodeRequest(code, ByteBuffer.wrap(body));
            byte[] encoded = IdentityHandshake.encode(request);
            assertThat(IdentityHandshake.encode(decodeRequest(encoded))).isEqualTo(encoded);
        } catch (ProtocolException e) {
            assertThat(e.getMessage()).isNotBlank();
        }
        try {
            Reply reply = IdentityHandshake.decodeReply(code, ByteBuffer.wrap(body));
            byte[] encoded = IdentityHandshake.encode(reply);
            Reply again = IdentityHandshake.readReply(new ByteArrayInputStream(encoded));
            // The reason may be cut to MAX_REASON_BYTES on the way out: the rest goes through unchanged.
            assertThat(again.answer()).isEqualTo(reply.answer());
            assertThat(again.responder()).isEqualTo(reply.responder());
            assertThat(again.inBandEndOfStream()).isEqualTo(reply.inBandEndOfStream());
            assertThat(IdentityHandshake.encode(again)).isEqualTo(encoded);
        } catch (ProtocolException e) {
            assertThat(e.getMessage()).isNotBlank();
        }
    }

    /** A reply read whole from a stream and from a channel: the same outcome either way. */
    private static void readReply(byte[] bytes) throws IOException {
        Object fromStream = outcome(() -> IdentityHandshake.readReply(new ByteArrayInputStream(bytes)));
        Object fromChannel =
                outcome(() -> IdentityHandshake.readReply(Channels.newChannel(new ByteArrayInputStream(bytes))));
        assertThat(fromChannel).isEqualTo(fromStream);
    }

    private interface Read {
        Reply read() throws IOException;
    }

    /** The reply, or the class of the allowed exception. */
    private static Object outcome(Read read) {
        try {
            return read.read();
        } catch (ProtocolException | EOFException e) {
            assertThat(e.getMessage()).isNotBlank();
            return e.getClass();
        } catch (IOException e) {
            return fail("reading a reply from memory failed with " + e, e);
        }
    }

    private static Request decodeRequest(byte[] encoded) {
        ByteBuffer frame = ByteBuffer.wrap(encoded);
        try {
            IdentityHandshake.checkHeader(frame);
            return IdentityHandshake.decodeRequest(
                    IdentityHandshake.code(frame),
                    ByteBuffer.wrap(
                                    encoded,
                                    IdentityHandshake.HEADER_LENGTH,
                                    encoded.length - IdentityHandshake.HEADER_LENGTH)
                            .slice());
        } catch (ProtocolException e) {
            return fail("an encoded request does not decode: " + e.getMessage(), e);
        }
    }
}
