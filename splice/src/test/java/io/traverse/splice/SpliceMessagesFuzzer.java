package io.traverse.splice;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.traverse.protocol.ProtocolException;
import io.traverse.splice.SpliceMessages.Answer;
import io.traverse.splice.SpliceMessages.Request;

/**
 * Coverage-guided fuzzing of the splice messages, which any node can send through the hub: each
 * input read as a request (as the asked node reads it) and as an answer (as the asking node reads
 * it). A valid message or {@link ProtocolException}; a decoded message encodes to bytes that
 * decode to the same message.
 */
class SpliceMessagesFuzzer {
    @FuzzTest(maxDuration = "10m")
    void message(byte[] bytes) {
        try {
            Request request = SpliceMessages.decodeRequest(bytes);
            byte[] encoded = SpliceMessages.encode(request);
            Request again = valid(SpliceMessages::decodeRequest, encoded);
            assertThat(again).isEqualTo(request);
            assertThat(SpliceMessages.encode(again)).isEqualTo(encoded);
        } catch (ProtocolException e) {
            assertThat(e.getMessage()).isNotBlank();
        }
        try {
            Answer answer = SpliceMessages.decodeAnswer(bytes);
            byte[] encoded = SpliceMessages.encode(answer);
            Answer again = valid(SpliceMessages::decodeAnswer, encoded);
            assertThat(again.status()).isEqualTo(answer.status());
            assertThat(again.endpoint()).isEqualTo(answer.endpoint());
            assertThat(answer.reason()).startsWith(again.reason());
            assertThat(SpliceMessages.encode(again)).isEqualTo(encoded);
        } catch (ProtocolException e) {
            assertThat(e.getMessage()).isNotBlank();
        }
    }

    private interface Decoder<T> {
        T decode(byte[] bytes) throws ProtocolException;
    }

    /** What an encoder wrote must decode. */
    private static <T> T valid(Decoder<T> decoder, byte[] encoded) {
        try {
            return decoder.decode(encoded);
        } catch (ProtocolException e) {
            return fail("an encoded message does not decode: " + e.getMessage(), e);
        }
    }
}
