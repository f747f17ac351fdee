package io.traverse.hub.relay;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** What a hub passes on of a node's credit: at most a window beyond what it wrote to the node. */
class DeliveryWindowTest {
    private static final int W = DeliveryWindow.SIZE;

    @Test
    void aLargeGrantIsPassedOnOnlyAWindowBeyondWhatWasWritten() {
        DeliveryWindow window = new DeliveryWindow();
        assertThat(window.granted(100L * W)).isEqualTo(W);
        assertThat(window.covers(0, W)).isTrue();
        assertThat(window.covers(W - 10, 11)).as("a sender that ignores the credit passed on").isFalse();
        assertThat(window.written(W / 8)).as("less than a quarter window further: no CREDIT yet").isEqualTo(-1);
        assertThat(window.written(W / 4)).isEqualTo(W / 4 + W);
        assertThat(window.granted(W / 2)).as("an old limit changes nothing").isEqualTo(W / 4 + W);
    }

    @Test
    void aSmallGrantIsPassedOnWholeAndItsLastBytesStillGetTheirCredit() {
        DeliveryWindow window = new DeliveryWindow();
        assertThat(window.granted(1000)).isEqualTo(1000);
        assertThat(window.written(1000)).as("the node granted no more").isEqualTo(-1);
        assertThat(window.granted(W + 1000)).isEqualTo(W + 1000);
        assertThat(window.granted(3L * W)).isEqualTo(W + 1000);
        // the node's limit is within reach: passed on even though it is less than a quarter window further
        assertThat(window.written(2L * W)).isEqualTo(3L * W);
        window.end();
        assertThat(window.granted(4L * W)).as("the node's own CREDITs still pass").isEqualTo(2L * W + W);
        assertThat(window.written(3L * W)).as("an ended connection gets no more CREDITs").isEqualTo(-1);
    }

    /**
     * Seeded: a sender that sends all it is passed, a hub that writes some of it, a node that grants
     * at random. The sender never stalls while the node has granted more than was written (no lost
     * wake-up), and the hub never holds more than a window of the connection.
     */
    @Test
    void theSenderAlwaysGetsMoreWhileTheNodeGrantsMoreAndTheHubHoldsAtMostAWindow() {
        long seed = 2126L;
        Random random = new Random(seed);
        DeliveryWindow window = new DeliveryWindow();
        long nodeLimit = 0;
        long senderLimit = 0;
        long sent = 0;
        long written = 0;
        for (int step = 0; step < 100_000; step++) {
            switch (random.nextInt(3)) {
                case 0 -> {
                    nodeLimit += random.nextInt(2 * W);
                    senderLimit = Math.max(senderLimit, window.granted(nodeLimit));
                }
                case 1 -> sent = senderLimit;
                default -> {
                    written += random.nextLong(sent - written + 1);
                    long more = window.written(written);
                    if (more >= 0) {
                        senderLimit = Math.max(senderLimit, more);
                    }
                }
            }
            assertThat(senderLimit).as("seed %d step %d", seed, step).isLessThanOrEqualTo(nodeLimit);
            assertThat(sent - written).as("held at the hub, seed %d step %d", seed, step).isLessThanOrEqualTo(W);
            if (written == sent && sent == senderLimit) {
                assertThat(senderLimit).as("everything sent was written: the sender waits only for the node, seed %d step %d", seed, step)
                        .isEqualTo(nodeLimit);
            }
        }
    }
}
