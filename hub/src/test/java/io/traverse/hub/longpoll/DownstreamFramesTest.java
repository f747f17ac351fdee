package io.traverse.hub.longpoll;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.traverse.identity.NodeId;
import io.traverse.wire.LinkPreamble;
import io.traverse.wire.Relay;
import io.traverse.wire.RelayDirection;
import io.traverse.wire.RelayEncoder;
import io.traverse.wire.RelayKind;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Which downstream bytes may wait for a batch timespan: only RELAY DATA frames; the preamble and
 * every other frame are urgent, however the stream is cut into writes (seeded random streams of
 * real RELAY headers with ids of every length, and other frames).
 */
class DownstreamFramesTest {
    /** A frame of the stream: where it starts and ends, and whether it must leave at once. */
    private record Frame(long start, long end, boolean urgent) {}

    static byte[] relay(RelayKind kind, String opener, String acceptor, int payloadBytes) {
        ByteBuf payload = Unpooled.buffer();
        switch (kind) {
            case DATA -> payload.writeLong(0).writeBytes(new byte[payloadBytes]);
            case CREDIT, FIN, PONG -> payload.writeLong(1234);
            case ACCEPT -> payload.writeInt(65536);
            default -> payload.writeBytes(new byte[0]);
        }
        Relay frame =
                new Relay(7, NodeId.of(opener), NodeId.of(acceptor), RelayDirection.TOWARD_OPENER, 16, kind, payload);
        try {
            ByteBuf out = RelayEncoder.header(frame, Unpooled.buffer());
            out.writeBytes(
                    frame.payload(),
                    frame.payload().readerIndex(),
                    frame.payload().readableBytes());
            byte[] bytes = new byte[out.readableBytes()];
            out.readBytes(bytes);
            return bytes;
        } finally {
            frame.release();
        }
    }

    /** Any frame but RELAY: length, type, payload. */
    static byte[] other(int type, int payloadBytes) {
        ByteBuf out =
                Unpooled.buffer().writeInt(1 + payloadBytes).writeByte(type).writeBytes(new byte[payloadBytes]);
        byte[] bytes = new byte[out.readableBytes()];
        out.readBytes(bytes);
        return bytes;
    }

    private static String id(Random random, int length) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < length; i++) {
            b.append((char) ('a' + random.nextInt(26)));
        }
        return b.toString();
    }

    @Test
    void onlyRelayDataMayWaitHoweverTheStreamIsCut() throws Exception {
        for (long seed = 1; seed <= 40; seed++) {
            Random random = new Random(seed);
            ByteArrayOutputStream stream = new ByteArrayOutputStream();
            List<Frame> frames = new ArrayList<>();
            stream.write(new byte[LinkPreamble.LENGTH]);
            frames.add(new Frame(0, LinkPreamble.LENGTH, true));
            RelayKind[] kinds = {
                RelayKind.DATA,
                RelayKind.DATA,
                RelayKind.DATA,
                RelayKind.CREDIT,
                RelayKind.FIN,
                RelayKind.ACCEPT,
                RelayKind.PING,
                RelayKind.PONG
            };
            for (int f = 0; f < 60; f++) {
                byte[] bytes;
                boolean urgent;
                if (random.nextInt(4) == 0) {
                    int type = new int[] {4, 6, 7, 20, 21, 32}[random.nextInt(6)];
                    bytes = other(type, random.nextInt(300));
                    urgent = true;
                } else {
                    RelayKind kind = kinds[random.nextInt(kinds.length)];
                    bytes = relay(
                            kind,
                            id(random, 1 + random.nextInt(40)),
                            id(random, 1 + random.nextInt(40)),
                            1 + random.nextInt(2000));
                    urgent = kind != RelayKind.DATA;
                }
                frames.add(new Frame(stream.size(), stream.size() + bytes.length, urgent));
                stream.write(bytes);
            }
            byte[] all = stream.toByteArray();
            DownstreamFrames scanner = new DownstreamFrames();
            int at = 0;
            while (at < all.length) {
                int n = Math.min(all.length - at, 1 + random.nextInt(random.nextBoolean() ? 7 : 700));
                scanner.scan(Unpooled.wrappedBuffer(all, at, n));
                at += n;
                // For every frame start already scanned: urgent bytes from there on exactly when some urgent frame that
                // ends after it has had its head read.
                for (Frame from : frames) {
                    if (from.start() >= at) {
                        break;
                    }
                    boolean expected = false;
                    for (Frame f : frames) {
                        if (f.urgent() && f.end() > from.start() && headKnown(f, at, all)) {
                            expected = true;
                            break;
                        }
                    }
                    assertThat(scanner.urgentFrom(from.start()))
                            .as("seed %d, %d bytes scanned, from offset %d", seed, at, from.start())
                            .isEqualTo(expected);
                }
            }
            assertThat(scanner.scanned()).isEqualTo(all.length);
        }
    }

    /** Whether enough of {@code f} has been scanned to classify it: the type (and for RELAY the kind). */
    private static boolean headKnown(Frame f, int scanned, byte[] all) {
        if (f.start() == 0) {
            return scanned > 0;
        }
        int start = (int) f.start();
        if (scanned < start + 5) {
            return false;
        }
        if ((all[start + 4] & 0xff) != 34) {
            return true;
        }
        int openerAt = start + 13;
        if (scanned < openerAt + 1) {
            return false;
        }
        int acceptorAt = openerAt + 1 + (all[openerAt] & 0xff);
        if (scanned < acceptorAt + 1) {
            return false;
        }
        int kindAt = acceptorAt + 1 + (all[acceptorAt] & 0xff) + 2;
        return scanned >= kindAt + 1;
    }

    @Test
    void aStreamThatDoesNotParseMakesEveryLaterByteUrgent() {
        DownstreamFrames scanner = new DownstreamFrames();
        scanner.scan(Unpooled.wrappedBuffer(new byte[LinkPreamble.LENGTH]));
        byte[] data = relay(RelayKind.DATA, "opener", "acceptor", 100);
        scanner.scan(Unpooled.wrappedBuffer(data));
        assertThat(scanner.urgentFrom(LinkPreamble.LENGTH))
                .as("a DATA frame may wait")
                .isFalse();
        scanner.scan(Unpooled.wrappedBuffer(new byte[] {0, 0, 0, 0, 34})); // a zero length: not what our encoder writes
        assertThat(scanner.urgentFrom(LinkPreamble.LENGTH + data.length)).isTrue();
        assertThat(scanner.urgentFrom(LinkPreamble.LENGTH)).isTrue();
    }
}
