package io.traverse.splice;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.traverse.protocol.ProtocolException;
import io.traverse.splice.SpliceMessages.Answer;
import io.traverse.splice.SpliceMessages.PublicEndpoint;
import io.traverse.splice.SpliceMessages.Request;
import io.traverse.splice.SpliceMessages.Status;
import java.net.InetAddress;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class SpliceMessagesTest {
    private static PublicEndpoint endpoint(String address, int port, int count) throws Exception {
        return new PublicEndpoint(InetAddress.getByName(address), List.of(port), count);
    }

    @Test
    void requestsRoundTrip() throws Exception {
        Request r = new Request(true, 8080, 29_500, 1_234, endpoint("198.18.0.2", 40000, 6));
        assertThat(SpliceMessages.decodeRequest(SpliceMessages.encode(r))).isEqualTo(r);
        Request v6 = new Request(false, 1, 0xFFFF_FFFFL, 0, endpoint("2001:db8::7", 65535, 1));
        assertThat(SpliceMessages.decodeRequest(SpliceMessages.encode(v6))).isEqualTo(v6);
        assertThat(endpoint("198.18.0.2", 40000, 3).ports(0)).containsExactly(40000, 40001, 40002);
        Request rounds = new Request(
                false,
                80,
                100,
                5,
                new PublicEndpoint(InetAddress.getByName("198.18.0.9"), List.of(41000, 52000, 33000, 60000), 2));
        assertThat(SpliceMessages.decodeRequest(SpliceMessages.encode(rounds))).isEqualTo(rounds);
        assertThat(rounds.endpoint().ports(2)).containsExactly(33000, 33001);
    }

    @Test
    void answersRoundTrip() throws Exception {
        Answer ready = Answer.ready(750, 120, endpoint("198.18.0.3", 51000, 1));
        assertThat(SpliceMessages.decodeAnswer(SpliceMessages.encode(ready))).isEqualTo(ready);
        Answer refused = Answer.refused(Status.UNSPLICEABLE, "node x cannot splice: ports are random");
        assertThat(SpliceMessages.decodeAnswer(SpliceMessages.encode(refused))).isEqualTo(refused);
        Answer longReason = Answer.refused(Status.BAD_REQUEST, "x".repeat(5000));
        assertThat(SpliceMessages.decodeAnswer(SpliceMessages.encode(longReason))
                        .reason())
                .hasSize(1024);
    }

    /** SpliceMessagesFuzzer's round trip failed here (an input at the 1024-byte edge): the cut split a character. */
    @Test
    void aLongReasonIsCutOnACharacterBoundary() throws Exception {
        String reason = "x".repeat(1023) + "é and more";
        byte[] encoded = SpliceMessages.encode(Answer.refused(Status.UNSPLICEABLE, reason));
        assertThat(encoded).hasSize(1 + 1023);
        Answer decoded = SpliceMessages.decodeAnswer(encoded);
        assertThat(decoded.reason()).isEqualTo("x".repeat(1023));
        assertThat(SpliceMessages.encode(decoded)).isEqualTo(encoded);
    }

    @Test
    void malformedRequestsAreRefusedWithAReason() throws Exception {
        byte[] good = SpliceMessages.encode(new Request(false, 8080, 1000, 10, endpoint("198.18.0.2", 40000, 1)));
        assertRequestRefused(with(good, 0, 1), "version 1");
        assertRequestRefused(with(good, 1, 6), "flags 6");
        assertRequestRefused(with(with(good, 2, 0), 3, 0), "virtual port 0");
        assertRequestRefused(with(good, 12, 5), "address family 5");
        assertRequestRefused(with(good, 17, 0), "candidate ports");
        assertRequestRefused(with(good, 17, 17), "candidate ports");
        assertRequestRefused(with(good, 18, 0), "0 rounds");
        assertRequestRefused(with(good, 18, 9), "9 rounds");
        assertRequestRefused(with(with(good, 19, 0), 20, 0), "ports 0");
        assertRequestRefused(Arrays.copyOf(good, good.length - 1), "truncated");
        assertRequestRefused(Arrays.copyOf(good, good.length + 1), "1 bytes too many");
        assertRequestRefused(new byte[0], "truncated");
    }

    @Test
    void malformedAnswersAreRefusedWithAReason() throws Exception {
        assertThatThrownBy(() -> SpliceMessages.decodeAnswer(new byte[0]))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("empty");
        assertThatThrownBy(() -> SpliceMessages.decodeAnswer(new byte[] {9}))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("unknown splice status 9");
        byte[] ready = SpliceMessages.encode(Answer.ready(1, 2, endpoint("198.18.0.3", 51000, 1)));
        assertThatThrownBy(() -> SpliceMessages.decodeAnswer(Arrays.copyOf(ready, 4)))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("truncated");
        assertThatThrownBy(() -> SpliceMessages.decodeAnswer(Arrays.copyOf(ready, ready.length + 2)))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("too many");
    }

    @Test
    void anEndpointPastTheLastPortIsNoEndpoint() {
        assertThatThrownBy(() -> endpoint("198.18.0.2", 65535, 2)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> endpoint("198.18.0.2", 0, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new PublicEndpoint(InetAddress.getByName("198.18.0.2"), List.of(), 1))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private static byte[] with(byte[] bytes, int index, int value) {
        byte[] copy = bytes.clone();
        copy[index] = (byte) value;
        return copy;
    }

    private static void assertRequestRefused(byte[] bytes, String why) {
        assertThatThrownBy(() -> SpliceMessages.decodeRequest(bytes))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining(why);
    }
}
