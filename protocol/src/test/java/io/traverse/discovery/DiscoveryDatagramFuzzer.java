package io.traverse.discovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.traverse.discovery.DiscoveryDatagram.Answer;
import io.traverse.discovery.DiscoveryDatagram.Probe;
import io.traverse.protocol.ProtocolException;
import java.util.Arrays;

/**
 * Coverage-guided fuzzing of the discovery datagrams, which anyone on the LAN can send: each
 * datagram read as a probe (as a hub reads it) and as an answer (as a node reads it), inside a
 * receive buffer larger than the datagram. A valid datagram or {@link ProtocolException}; a
 * decoded one encodes to bytes that decode to the same datagram.
 */
class DiscoveryDatagramFuzzer {
    @FuzzTest(maxDuration = "10m")
    void datagram(byte[] datagram) {
        // The rest of a receive buffer holds whatever an earlier datagram left there.
        byte[] buffer = Arrays.copyOf(datagram, datagram.length + 64);
        Arrays.fill(buffer, datagram.length, buffer.length, (byte) 0x5a);
        try {
            Probe probe = DiscoveryDatagram.decodeProbe(buffer, datagram.length);
            byte[] encoded = DiscoveryDatagram.encode(probe);
            assertThat(encoded).isEqualTo(datagram);
        } catch (ProtocolException e) {
            assertThat(e.getMessage()).isNotBlank();
        }
        try {
            Answer answer = DiscoveryDatagram.decodeAnswer(buffer, datagram.length);
            byte[] encoded = DiscoveryDatagram.encode(answer);
            Answer again = decodeValid(encoded);
            assertThat(again.hubName()).isEqualTo(answer.hubName());
            assertThat(again.nonce()).isEqualTo(answer.nonce());
            assertThat(again.linkAddresses()).isEqualTo(answer.linkAddresses());
            assertThat(DiscoveryDatagram.encode(again)).isEqualTo(encoded);
        } catch (ProtocolException e) {
            assertThat(e.getMessage()).isNotBlank();
        }
    }

    private static Answer decodeValid(byte[] encoded) {
        try {
            return DiscoveryDatagram.decodeAnswer(encoded, encoded.length);
        } catch (ProtocolException e) {
            return fail("an encoded answer does not decode: " + e.getMessage(), e);
        }
    }
}
