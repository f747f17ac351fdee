package io.traverse.bench.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** The load runs' latency histogram: quantiles within its 1/64 precision, exact maximum, and its line form. */
class LatencyHistogramTest {
    @Test
    void quantilesAreWithinOneBucketOfTheExactOnes() {
        LatencyHistogram h = new LatencyHistogram();
        long[] values = new long[100_000];
        Random random = new Random(21);
        for (int i = 0; i < values.length; i++) {
            values[i] = (long) Math.exp(random.nextDouble() * Math.log(10_000_000)); // 1 µs .. 10 s, log-uniform
            h.record(values[i]);
        }
        java.util.Arrays.sort(values);
        for (double q : new double[] {0.5, 0.9, 0.99, 0.999}) {
            long exact = values[(int) Math.ceil(q * values.length) - 1];
            assertThat((double) h.quantileMicros(q)).as("q %s", q).isBetween(exact * 0.98, exact * 1.02 + 1);
        }
        assertThat(h.maxMicros()).isEqualTo(values[values.length - 1]);
        assertThat(h.count()).isEqualTo(values.length);
    }

    @Test
    void theLineFormAddsUpAndADifferenceKeepsWhatCameSince() {
        LatencyHistogram a = new LatencyHistogram();
        for (long v = 0; v < 5000; v += 7) {
            a.record(v);
        }
        LatencyHistogram copy = LatencyHistogram.decode(a.encode());
        assertThat(copy.encode()).isEqualTo(a.encode());
        LatencyHistogram before = LatencyHistogram.decode(a.encode());
        a.record(123_456);
        LatencyHistogram since = a.since(before);
        assertThat(since.count()).isEqualTo(1);
        assertThat(since.maxMicros()).isEqualTo(123_456);
        assertThat(LatencyHistogram.decode("-").count()).isZero();
    }

    @Test
    void everyValueFallsInABucketWhoseUpperBoundIsAtLeastIt() {
        for (long v : new long[] {0, 1, 127, 128, 129, 255, 256, 1000, 65_535, 1L << 40}) {
            int i = LatencyHistogram.index(v);
            assertThat(LatencyHistogram.upperBound(i)).as("value %d", v).isGreaterThanOrEqualTo(v);
            assertThat(i == 0 || LatencyHistogram.upperBound(i - 1) < v)
                    .as("value %d in the first bucket that holds it", v)
                    .isTrue();
        }
    }
}
