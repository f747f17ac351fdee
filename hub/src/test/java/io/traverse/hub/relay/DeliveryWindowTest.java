package io.traverse.hub.relay;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** What a hub passes on of a node's credit: at most a window beyond what it wrote to the node. */
class DeliveryWindowTest {
    private static final int W = DeliveryWindow.SIZE;

    @Test
    void aLargeGrantIsPassedOnOnlyAWindowBeyondWhatWasWritten() {
        DeliveryWindow window = new DeliveryWindow();
        assertThat(window.granted(100L * W, W, false)).isEqualTo(W);
        assertThat(window.sending(0, W, null))
                .as("held back: its write is reported")
                .isEqualTo(DeliveryWindow.COVERED_REPORT_WRITE);
        assertThat(window.sending(W - 10, 11, null))
                .as("a sender that ignores the credit passed on")
                .isEqualTo(DeliveryWindow.NOT_COVERED);
        assertThat(window.written(W / 8))
                .as("less than a quarter window further: no CREDIT yet")
                .isEqualTo(-1);
        assertThat(window.written(W / 4)).isEqualTo(W / 4 + W);
        assertThat(window.granted(W / 2, W, false))
                .as("an old limit changes nothing")
                .isEqualTo(W / 4 + W);
    }

    @Test
    void aNodeThatGrantsNoMoreThanAWindowAheadIsNeverHeldBackNorFollowed() {
        DeliveryWindow window = new DeliveryWindow();
        assertThat(window.granted(W, W, false)).isEqualTo(W);
        assertThat(window.sending(0, W / 2, null)).isEqualTo(DeliveryWindow.COVERED);
        assertThat(window.barrier()).isEqualTo(-1);
        assertThat(window.granted(W + W / 2, W, false))
                .as("the node read half: a routed node's grant")
                .isEqualTo(W + W / 2);
        assertThat(window.barrier()).as("nothing held back: no barrier").isEqualTo(-1);
    }

    @Test
    void whenTheWindowStartsToHoldBackABarrierCoversWhatWasQueuedUnreported() {
        DeliveryWindow window = new DeliveryWindow();
        window.granted(W, W, false);
        assertThat(window.sending(0, W, null)).isEqualTo(DeliveryWindow.COVERED);
        assertThat(window.granted(10L * W, W, false))
                .as("written is not known past 0: held to a window")
                .isEqualTo(W);
        assertThat(window.barrier()).isEqualTo(W);
        assertThat(window.barrier()).as("one barrier, when following begins").isEqualTo(-1);
        assertThat(window.written(W))
                .as("the barrier tells what was written: the sender gets more")
                .isEqualTo(2L * W);
        window.end();
        assertThat(window.written(2L * W))
                .as("an ended connection gets no more CREDITs")
                .isEqualTo(-1);
    }

    @Test
    void whileTheNodesLinkIsCongestedEachConnectionIsHeldToItsShare() {
        int share = DeliveryWindow.sizeFor(64);
        assertThat(share).as("8 MiB over 64 connections").isEqualTo(128 * 1024);
        DeliveryWindow window = new DeliveryWindow();
        assertThat(window.granted(W / 2, share, false))
                .as("the link keeps up: a routed node's grant passes whole")
                .isEqualTo(W / 2);
        assertThat(window.sending(0, W / 2, null)).isEqualTo(DeliveryWindow.COVERED);
        assertThat(window.granted(W, share, true))
                .as("congested, and the grant is beyond the share: held to what was written")
                .isEqualTo(W / 2);
        assertThat(window.barrier()).isEqualTo(W / 2);
        assertThat(window.written(W / 2)).as("written: a share beyond it").isEqualTo(W / 2 + share);
        assertThat(window.sending(W / 2, share, null)).isEqualTo(DeliveryWindow.COVERED_REPORT_WRITE);
        assertThat(window.written(W / 2 + share / 8))
                .as("less than a quarter share further: no CREDIT yet")
                .isEqualTo(-1);
        assertThat(window.written(W / 2 + share / 4)).isEqualTo(W / 2 + share / 4 + share);
    }

    @Test
    void windowsShrinkWithTheNodesConnectionsToAFloorAndTheirSumIsBounded() {
        assertThat(DeliveryWindow.sizeFor(0)).isEqualTo(W);
        assertThat(DeliveryWindow.sizeFor(8)).isEqualTo(W);
        assertThat(DeliveryWindow.sizeFor(2000)).isEqualTo(DeliveryWindow.FLOOR);
        assertThat(DeliveryWindow.sizeFor(1_000_000)).isEqualTo(DeliveryWindow.MIN);
        for (int n = 1; n <= 12_000; n++) {
            assertThat((long) n * DeliveryWindow.sizeFor(n))
                    .as("%d connections' windows", n)
                    .isLessThanOrEqualTo(DeliveryWindow.queueBound(n) - DeliveryWindow.SIZE)
                    .isLessThanOrEqualTo(Math.max(DeliveryWindow.NODE_QUEUE, (long) n * DeliveryWindow.FLOOR));
            assertThat(DeliveryWindow.queueBound(n)).isLessThanOrEqualTo(DeliveryWindow.MAX_LINK_QUEUE);
        }
        assertThat(DeliveryWindow.sizeFor(5000)).as("the default most per node").isGreaterThan(8 * 1024);
    }

    /**
     * Seeded: a sender that sends what it is passed, a hub link that writes queued frames in order
     * (and barriers with them), a node that grants at random, sometimes far ahead. The sender never
     * waits while the node granted more than everything sent (no lost wake-up), and no more than a
     * window of the connection waits unwritten at the hub.
     */
    @Test
    void theSenderAlwaysGetsMoreWhileTheNodeGrantsMoreAndTheHubHoldsAtMostAWindow() {
        simulate(2126L, false);
    }

    /**
     * The same, with barriers that complete at once: written on another link than the DATA (hub
     * routes that differ by direction) or on a link that failed. The sender still never waits
     * while the node granted more, and the hub holds at most one window more.
     */
    @Test
    void barriersThatCompleteBeforeTheDataLoseNoWakeUp() {
        simulate(2127L, true);
    }

    private static void simulate(long seed, boolean barriersAtOnce) {
        Random random = new Random(seed);
        DeliveryWindow window = new DeliveryWindow();
        ArrayDeque<long[]> linkQueue = new ArrayDeque<>(); // {end, 0 = unreported DATA, 1 = reported DATA, 2 = barrier}
        long nodeLimit = 0;
        long senderLimit = 0;
        long sent = 0;
        long written = 0;
        int size = W;
        for (int step = 0; step < 200_000; step++) {
            switch (random.nextInt(4)) {
                case 0 -> {
                    if (random.nextInt(100) == 0) {
                        size = DeliveryWindow.sizeFor(
                                1 + random.nextInt(1000)); // the node holds more or fewer connections
                    }
                    nodeLimit = Math.max(nodeLimit, written + random.nextInt(random.nextBoolean() ? W : 4 * W));
                    senderLimit = Math.max(
                            senderLimit, window.granted(nodeLimit, size, !linkQueue.isEmpty() && random.nextBoolean()));
                    long barrier = window.barrier();
                    if (barrier >= 0 && barriersAtOnce) {
                        senderLimit = Math.max(senderLimit, window.written(barrier));
                    } else if (barrier >= 0) {
                        linkQueue.add(new long[] {barrier, 2});
                    }
                }
                case 1 -> {
                    if (sent < senderLimit) {
                        int n = (int) Math.min(senderLimit - sent, 1 + random.nextInt(128 * 1024));
                        int kind = window.sending(sent, n, null);
                        assertThat(kind).isNotEqualTo(DeliveryWindow.NOT_COVERED);
                        sent += n;
                        linkQueue.add(new long[] {sent, kind == DeliveryWindow.COVERED_REPORT_WRITE ? 1 : 0});
                    }
                }
                default -> {
                    long[] head = linkQueue.poll();
                    if (head != null) {
                        if (head[1] != 2) {
                            written = head[0];
                        }
                        if (head[1] != 0) {
                            long more = window.written(head[0]);
                            senderLimit = Math.max(senderLimit, more);
                        }
                    }
                }
            }
            assertThat(senderLimit).as("seed %d step %d", seed, step).isLessThanOrEqualTo(nodeLimit);
            assertThat(sent - written)
                    .as("unwritten at the hub, seed %d step %d", seed, step)
                    .isLessThanOrEqualTo(barriersAtOnce ? 2L * W : W);
            if (linkQueue.isEmpty() && sent == senderLimit) {
                assertThat(senderLimit)
                        .as("all written and the sender waits: only for the node, seed %d step %d", seed, step)
                        .isEqualTo(nodeLimit);
            }
        }
    }
}
