package io.traverse.discovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import io.traverse.identity.RandomIdentities;
import io.traverse.protocol.ProtocolException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class DiscoveryDatagramTest {
    private static final byte[] NONCE = HexFormat.of().parseHex("00112233445566778899aabbccddeeff");

    @Test
    void probeRoundTripsAndIsExactlySixtyFourBytes() throws Exception {
        byte[] bytes = DiscoveryDatagram.encode(new DiscoveryDatagram.Probe(NONCE));
        assertThat(bytes).hasSize(DiscoveryDatagram.PROBE_LENGTH);
        assertThat(HexFormat.of().formatHex(bytes, 0, 8)).isEqualTo("5452564401010000");
        assertThat(DiscoveryDatagram.decodeProbe(bytes, bytes.length).nonce()).isEqualTo(NONCE);
    }

    @Test
    void answerRoundTripsWithEveryAddressFamily() throws Exception {
        List<InetSocketAddress> addresses = List.of(
                new InetSocketAddress("198.18.0.1", 17000),
                new InetSocketAddress("fd00::1", 17001),
                new InetSocketAddress("0.0.0.0", 17002));
        DiscoveryDatagram.Answer answer = new DiscoveryDatagram.Answer(NONCE, "hub-a:17000", addresses);
        byte[] bytes = DiscoveryDatagram.encode(answer);
        DiscoveryDatagram.Answer back = DiscoveryDatagram.decodeAnswer(bytes, bytes.length);
        assertThat(back).isEqualTo(answer);
        assertThat(back.answers(NONCE)).isTrue();
        assertThat(back.answers(new byte[16])).isFalse();
    }

    @Test
    void wildcardLinkAddressMeansTheAnswersSource() throws Exception {
        DiscoveryDatagram.Answer answer = new DiscoveryDatagram.Answer(
                NONCE,
                "h",
                List.of(new InetSocketAddress("0.0.0.0", 17000), new InetSocketAddress("198.18.0.1", 17000)));
        assertThat(answer.linkAddressesSeenFrom(InetAddress.getByName("10.0.0.7")))
                .containsExactly(new InetSocketAddress("10.0.0.7", 17000), new InetSocketAddress("198.18.0.1", 17000));
    }

    @Test
    void largestAnswerStaysWithinTheBound() {
        List<InetSocketAddress> addresses = new ArrayList<>();
        for (int i = 0; i < DiscoveryDatagram.MAX_ADDRESSES; i++) {
            addresses.add(new InetSocketAddress("fd00::" + (i + 1), 17000));
        }
        byte[] bytes = DiscoveryDatagram.encode(new DiscoveryDatagram.Answer(NONCE, "h".repeat(128), addresses));
        assertThat(bytes).hasSize(DiscoveryDatagram.MAX_ANSWER_LENGTH);
        // The amplification a forged probe buys is bounded by this ratio.
        assertThat(bytes.length).isLessThan(8 * DiscoveryDatagram.PROBE_LENGTH);
    }

    @Test
    void answersThatCannotBeEncodedAreRefusedUpFront() {
        InetSocketAddress a = new InetSocketAddress("198.18.0.1", 17000);
        assertThatThrownBy(() -> new DiscoveryDatagram.Answer(NONCE, "h".repeat(129), List.of(a)))
                .hasMessageContaining("longer than 128");
        assertThatThrownBy(() -> new DiscoveryDatagram.Answer(NONCE, "h", List.of()))
                .hasMessageContaining("1-16");
        assertThatThrownBy(() ->
                        new DiscoveryDatagram.Answer(NONCE, "h", List.of(InetSocketAddress.createUnresolved("hub", 1))))
                .hasMessageContaining("not an IP address");
        assertThatThrownBy(() -> new DiscoveryDatagram.Answer(new byte[3], "h", List.of(a)))
                .hasMessageContaining("16 bytes");
    }

    @Test
    void malformedProbesAreNamedProtocolErrors() {
        byte[] valid = DiscoveryDatagram.encode(new DiscoveryDatagram.Probe(NONCE));
        assertThatThrownBy(() -> DiscoveryDatagram.decodeProbe(valid, 63))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("64 bytes");
        byte[] wrongMagic = valid.clone();
        wrongMagic[0] = 'X';
        assertThatThrownBy(() -> DiscoveryDatagram.decodeProbe(wrongMagic, 64)).hasMessageContaining("wrong magic");
        byte[] newerVersion = valid.clone();
        newerVersion[4] = 2;
        assertThatThrownBy(() -> DiscoveryDatagram.decodeProbe(newerVersion, 64))
                .hasMessageContaining("unsupported discovery version 2 (this side speaks 1)");
        byte[] answerKind = valid.clone();
        answerKind[5] = 2;
        assertThatThrownBy(() -> DiscoveryDatagram.decodeProbe(answerKind, 64)).hasMessageContaining("kind 2");
        byte[] dirtyPadding = valid.clone();
        dirtyPadding[63] = 1;
        assertThatThrownBy(() -> DiscoveryDatagram.decodeProbe(dirtyPadding, 64))
                .hasMessageContaining("padding");
    }

    @Test
    void malformedAnswersAreNamedProtocolErrors() {
        byte[] valid = DiscoveryDatagram.encode(
                new DiscoveryDatagram.Answer(NONCE, "hub", List.of(new InetSocketAddress("198.18.0.1", 17000))));
        byte[] trailing = Arrays.copyOf(valid, valid.length + 1);
        assertThatThrownBy(() -> DiscoveryDatagram.decodeAnswer(trailing, trailing.length))
                .hasMessageContaining("trailing");
        assertThatThrownBy(() -> DiscoveryDatagram.decodeAnswer(valid, valid.length - 1))
                .hasMessageContaining("truncated");
        byte[] badFamily = valid.clone();
        badFamily[DiscoveryDatagram.HEADER_LENGTH + 1 + 3 + 1] = 5;
        assertThatThrownBy(() -> DiscoveryDatagram.decodeAnswer(badFamily, badFamily.length))
                .hasMessageContaining("family 5");
        byte[] portZero = valid.clone();
        portZero[valid.length - 1] = 0;
        portZero[valid.length - 2] = 0;
        assertThatThrownBy(() -> DiscoveryDatagram.decodeAnswer(portZero, portZero.length))
                .hasMessageContaining("port 0");
        byte[] multicast = valid.clone();
        multicast[valid.length - 6] = (byte) 239;
        assertThatThrownBy(() -> DiscoveryDatagram.decodeAnswer(multicast, multicast.length))
                .hasMessageContaining("cannot be dialled");
        byte[] probe = DiscoveryDatagram.encode(new DiscoveryDatagram.Probe(NONCE));
        assertThatThrownBy(() -> DiscoveryDatagram.decodeAnswer(probe, probe.length))
                .hasMessageContaining("kind 1");
    }

    /** Whatever arrives, the decoders give a valid datagram or a ProtocolException — nothing else escapes. */
    @Test
    void randomAndMutatedBytesOnlyEverGiveProtocolExceptions() {
        byte[] answer = DiscoveryDatagram.encode(new DiscoveryDatagram.Answer(
                NONCE,
                "hub-ä",
                List.of(new InetSocketAddress("198.18.0.1", 17000), new InetSocketAddress("fd00::1", 1))));
        byte[] probe = DiscoveryDatagram.encode(new DiscoveryDatagram.Probe(NONCE));
        for (int n = 0; n < 20_000; n++) {
            Random r = RandomIdentities.forCase(n);
            byte[] bytes;
            switch (r.nextInt(3)) {
                case 0 -> {
                    bytes = new byte[r.nextInt(DiscoveryDatagram.MAX_ANSWER_LENGTH + 2)];
                    r.nextBytes(bytes);
                    if (bytes.length >= 6) {
                        ByteBuffer.wrap(bytes)
                                .putInt(DiscoveryDatagram.MAGIC)
                                .put((byte) 1)
                                .put((byte) (1 + r.nextInt(2)));
                    }
                }
                case 1 -> bytes = mutate(answer, r);
                default -> bytes = mutate(probe, r);
            }
            byte[] data = bytes;
            for (Decoder d : List.<Decoder>of(DiscoveryDatagram::decodeProbe, DiscoveryDatagram::decodeAnswer)) {
                try {
                    d.decode(data, data.length);
                } catch (ProtocolException expected) {
                    // fine
                } catch (RuntimeException e) {
                    fail("%s escaped for %s on %s", e, HexFormat.of().formatHex(data), RandomIdentities.describe(n));
                }
            }
        }
    }

    private static byte[] mutate(byte[] valid, Random r) {
        byte[] out = Arrays.copyOf(valid, Math.max(0, valid.length + r.nextInt(9) - 4));
        for (int i = r.nextInt(4); i >= 0 && out.length > 0; i--) {
            out[r.nextInt(out.length)] = (byte) r.nextInt(256);
        }
        return out;
    }

    private interface Decoder {
        Object decode(byte[] data, int length) throws ProtocolException;
    }
}
