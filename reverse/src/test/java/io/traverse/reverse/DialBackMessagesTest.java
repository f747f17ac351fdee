package io.traverse.reverse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.traverse.protocol.IdentityHandshake;
import io.traverse.protocol.ProtocolException;
import io.traverse.reverse.DialBackMessages.Answer;
import io.traverse.reverse.DialBackMessages.Request;
import io.traverse.reverse.DialBackMessages.Status;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The reverse module's two side-channel messages: their form, their bounds, and bad input. */
class DialBackMessagesTest {
    private static final String DIALLER = "tv1-source.a10-0-0-3p5001";

    @Test
    void aRequestRoundTripsWithEveryField() throws Exception {
        byte[] token = new byte[IdentityHandshake.TOKEN_LENGTH];
        new Random(7).nextBytes(token);
        Request decoded = DialBackMessages.decodeRequest(
                DialBackMessages.encode(new Request(token, 65_535, 4_321, DIALLER, true)));
        assertThat(decoded.token()).isEqualTo(token);
        assertThat(decoded.virtualPort()).isEqualTo(65_535);
        assertThat(decoded.millisLeft()).isEqualTo(4_321);
        assertThat(decoded.diallerIdentity()).isEqualTo(DIALLER);
        assertThat(decoded.held()).isTrue();
        assertThat(DialBackMessages.decodeRequest(DialBackMessages.encode(new Request(token, 80, 1, DIALLER, false)))
                        .held())
                .isFalse();
    }

    @Test
    void requestsOfEarlierVersionsWhoseTargetsSendTheTokenInClearAreRefused() {
        byte[] v5 = DialBackMessages.encode(
                new Request(new byte[IdentityHandshake.TOKEN_LENGTH], 0x1234, 1_000, DIALLER, false));
        for (int version : new int[] {3, 4}) {
            byte[] earlier = v5.clone();
            earlier[0] = (byte) version;
            assertThatThrownBy(() -> DialBackMessages.decodeRequest(earlier))
                    .isInstanceOf(ProtocolException.class)
                    .hasMessage("dial-back request version " + version + " (this node speaks 5)");
        }
    }

    @Test
    void theRequestsFormIsTheDocumentedOne() {
        byte[] token = new byte[IdentityHandshake.TOKEN_LENGTH];
        Arrays.fill(token, (byte) 0x5a);
        byte[] bytes = DialBackMessages.encode(new Request(token, 0x1234, 0x01020304L, "n", true));
        assertThat(bytes).hasSize(2 + IdentityHandshake.TOKEN_LENGTH + 2 + 4 + 1);
        assertThat(bytes[0]).isEqualTo((byte) DialBackMessages.VERSION);
        assertThat(bytes[1]).isEqualTo((byte) DialBackMessages.HELD);
        assertThat(Arrays.copyOfRange(bytes, 2, 18)).isEqualTo(token);
        assertThat(Arrays.copyOfRange(bytes, 18, 24)).containsExactly(0x12, 0x34, 1, 2, 3, 4);
        assertThat(bytes[24]).isEqualTo((byte) 'n');
    }

    @Test
    void timeLeftBeyondFourBytesIsSentAsTheLargestTheyHold() throws Exception {
        Request decoded = DialBackMessages.decodeRequest(DialBackMessages.encode(
                new Request(new byte[IdentityHandshake.TOKEN_LENGTH], 80, Long.MAX_VALUE, DIALLER, true)));
        assertThat(decoded.millisLeft()).isEqualTo(0xFFFF_FFFFL);
    }

    @Test
    void anotherVersionUnknownFlagsAPortOfZeroAndATruncatedRequestAreRefusedByName() {
        byte[] good = DialBackMessages.encode(
                new Request(new byte[IdentityHandshake.TOKEN_LENGTH], 80, 1_000, DIALLER, false));
        byte[] otherVersion = good.clone();
        otherVersion[0] = 2;
        assertThatThrownBy(() -> DialBackMessages.decodeRequest(otherVersion))
                .isInstanceOf(ProtocolException.class)
                .hasMessage("dial-back request version 2 (this node speaks 5)");
        byte[] unknownFlags = good.clone();
        unknownFlags[1] = 0x03;
        assertThatThrownBy(() -> DialBackMessages.decodeRequest(unknownFlags))
                .isInstanceOf(ProtocolException.class)
                .hasMessage("dial-back request flags 3 (this node knows 1)");
        byte[] portZero = good.clone();
        portZero[18] = 0;
        portZero[19] = 0;
        assertThatThrownBy(() -> DialBackMessages.decodeRequest(portZero))
                .isInstanceOf(ProtocolException.class)
                .hasMessage("virtual port 0 is not a port");
        assertThatThrownBy(() -> DialBackMessages.decodeRequest(Arrays.copyOf(good, 20)))
                .isInstanceOf(ProtocolException.class)
                .hasMessage("dial-back request of 20 bytes is truncated");
        assertThatThrownBy(() -> DialBackMessages.decodeRequest(new byte[0]))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("truncated");
    }

    @Test
    void anAnswerRoundTripsAndItsReasonIsCutAtOneKibibyte() throws Exception {
        for (Status status : Status.values()) {
            Answer decoded = DialBackMessages.decodeAnswer(DialBackMessages.encode(new Answer(status, "why: é")));
            assertThat(decoded).isEqualTo(new Answer(status, "why: é"));
        }
        byte[] longReason = DialBackMessages.encode(new Answer(Status.UNREACHABLE, "x".repeat(5_000)));
        assertThat(longReason).hasSize(1 + 1_024);
        assertThat(DialBackMessages.decodeAnswer(longReason).reason()).hasSize(1_024);
    }

    /** DialBackMessagesFuzzer's round trip failed here (an input at the 1024-byte edge): the cut split a character. */
    @Test
    void aLongReasonIsCutOnACharacterBoundary() throws Exception {
        String reason = "x".repeat(1_023) + "é and more";
        byte[] encoded = DialBackMessages.encode(new Answer(Status.BAD_REQUEST, reason));
        assertThat(encoded).hasSize(1 + 1_023);
        Answer decoded = DialBackMessages.decodeAnswer(encoded);
        assertThat(decoded.reason()).isEqualTo("x".repeat(1_023));
        assertThat(DialBackMessages.encode(decoded)).isEqualTo(encoded);
        String wide = "€".repeat(400); // three bytes each: 1200
        assertThat(DialBackMessages.decodeAnswer(DialBackMessages.encode(new Answer(Status.UNREACHABLE, wide)))
                        .reason())
                .isEqualTo("€".repeat(341));
    }

    @Test
    void anEmptyAnswerOrAnUnknownStatusIsAProtocolError() {
        assertThatThrownBy(() -> DialBackMessages.decodeAnswer(new byte[0]))
                .isInstanceOf(ProtocolException.class)
                .hasMessage("empty dial-back answer");
        byte[] unknown = "?no".getBytes(StandardCharsets.UTF_8);
        unknown[0] = (byte) Status.values().length;
        assertThatThrownBy(() -> DialBackMessages.decodeAnswer(unknown))
                .isInstanceOf(ProtocolException.class)
                .hasMessage("unknown dial-back status " + Status.values().length);
    }

    @Test
    void randomBytesDecodeOrFailWithAProtocolErrorOnly() {
        Random random = new Random(20261127L);
        int decodedRequests = 0;
        for (int i = 0; i < 20_000; i++) {
            byte[] bytes = new byte[random.nextInt(48)];
            random.nextBytes(bytes);
            if (random.nextBoolean() && bytes.length > 0) {
                bytes[0] = (byte) DialBackMessages.VERSION; // get past the version check often
                if (bytes.length > 1) {
                    bytes[1] = (byte) (random.nextBoolean() ? DialBackMessages.HELD : 0); // and the flags
                }
            }
            try {
                Request r = DialBackMessages.decodeRequest(bytes);
                assertThat(r.virtualPort()).isBetween(1, 65_535);
                assertThat(r.token()).hasSize(IdentityHandshake.TOKEN_LENGTH);
                decodedRequests++;
            } catch (ProtocolException expected) {
                // refused, as bad input must be
            }
            try {
                DialBackMessages.decodeAnswer(bytes);
            } catch (ProtocolException expected) {
                // refused, as bad input must be
            }
        }
        assertThat(decodedRequests)
                .as("the seeded input reaches the decoder's later fields")
                .isGreaterThan(1_000);
    }
}
