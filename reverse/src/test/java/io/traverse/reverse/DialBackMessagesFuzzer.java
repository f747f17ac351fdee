package io.traverse.reverse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.traverse.protocol.ProtocolException;
import io.traverse.reverse.DialBackMessages.Answer;
import io.traverse.reverse.DialBackMessages.Request;

/**
 * Coverage-guided fuzzing of the dial-back messages, which any node can send through the hub:
 * each input read as a request (as the asked node reads it) and as an answer (as the asking node
 * reads it). A valid message or {@link ProtocolException}; a decoded message encodes to bytes that
 * decode to the same message.
 */
class DialBackMessagesFuzzer {
    @FuzzTest(maxDuration = "10m")
    void message(byte[] bytes) {
        try {
            Request request = DialBackMessages.decodeRequest(bytes);
            byte[] encoded = DialBackMessages.encode(request);
            Request again = valid(DialBackMessages::decodeRequest, encoded);
            assertThat(again.token()).isEqualTo(request.token());
            assertThat(again.virtualPort()).isEqualTo(request.virtualPort());
            assertThat(again.millisLeft()).isEqualTo(request.millisLeft());
            assertThat(again.held()).isEqualTo(request.held());
            assertThat(DialBackMessages.encode(again)).isEqualTo(encoded);
        } catch (ProtocolException e) {
            assertThat(e.getMessage()).isNotBlank();
        }
        try {
            Answer answer = DialBackMessages.decodeAnswer(bytes);
            byte[] encoded = DialBackMessages.encode(answer);
            Answer again = valid(DialBackMessages::decodeAnswer, encoded);
            assertThat(again.status()).isEqualTo(answer.status());
            assertThat(answer.reason()).startsWith(again.reason());
            assertThat(DialBackMessages.encode(again)).isEqualTo(encoded);
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
