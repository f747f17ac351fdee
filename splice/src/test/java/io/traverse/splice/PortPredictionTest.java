package io.traverse.splice;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.traverse.splice.PortPrediction.Behaviour;
import io.traverse.splice.PortPrediction.Echo;
import io.traverse.splice.PortPrediction.Strategy;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class PortPredictionTest {
    @Test
    void aNatThatKeepsBothPortsPreservesAndThePeerExpectsTheEchoedPort() {
        Behaviour b = PortPrediction.classify(new Echo(40000, 40000), new Echo(51234, 51234), 2);
        assertThat(b).isEqualTo(Behaviour.PRESERVING);
        assertThat(PortPrediction.candidates(b, 51234, 1)).containsExactly(51234);
        assertThat(PortPrediction.candidates(b, 51234, 3)).containsExactly(51234, 51235, 51236);
    }

    @Test
    void publicPortsAFewApartAreSequentialAndThePeerExpectsTheNextOnes() {
        Behaviour b = PortPrediction.classify(new Echo(40000, 1024), new Echo(40001, 1025), 6);
        assertThat(b).isEqualTo(Behaviour.SEQUENTIAL);
        assertThat(PortPrediction.candidates(b, 1025, 6)).containsExactly(1026, 1027, 1028, 1029, 1030, 1031);
        assertThat(PortPrediction.classify(new Echo(40000, 1030), new Echo(40001, 1024), 6))
                .as("echoes in parallel may come back in either order")
                .isEqualTo(Behaviour.SEQUENTIAL);
    }

    @Test
    void publicPortsFarApartOrEqualForTwoLocalPortsAreRandom() {
        assertThat(PortPrediction.classify(new Echo(40000, 61012), new Echo(40001, 33507), 6))
                .isEqualTo(Behaviour.RANDOM);
        assertThat(PortPrediction.classify(new Echo(40000, 5000), new Echo(40001, 5000), 6))
                .isEqualTo(Behaviour.RANDOM);
        assertThat(PortPrediction.classify(new Echo(40000, 40000), new Echo(40001, 9), 6))
                .as("one kept port is luck, not a rule")
                .isEqualTo(Behaviour.RANDOM);
        assertThat(PortPrediction.candidates(Behaviour.RANDOM, 5000, 6)).isEmpty();
    }

    @Test
    void candidatesStopAtTheLastPort() {
        assertThat(PortPrediction.candidates(Behaviour.PRESERVING, 65534, 4)).containsExactly(65534, 65535);
        assertThat(PortPrediction.candidates(Behaviour.SEQUENTIAL, 65535, 4)).isEmpty();
    }

    @Test
    void theStrategySaysWhichBehavioursAreSpliced() {
        assertThat(Strategy.parse("preserve").splices(Behaviour.PRESERVING)).isTrue();
        assertThat(Strategy.parse("preserve").splices(Behaviour.SEQUENTIAL)).isFalse();
        assertThat(Strategy.parse("SEQUENTIAL").splices(Behaviour.SEQUENTIAL)).isTrue();
        assertThat(Strategy.parse("sequential").splices(Behaviour.RANDOM)).isFalse();
        assertThatThrownBy(() -> Strategy.parse("guess")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theTargetFiresWhenItsAnswerReachesTheSource() {
        long source = TimeUnit.MILLISECONDS.toNanos(4);
        long target = TimeUnit.MILLISECONDS.toNanos(10);
        // The answer goes target -> hub -> source: half of each side's round trip to its hub.
        assertThat(PortPrediction.fireDelayNanos(source, target)).isEqualTo(TimeUnit.MILLISECONDS.toNanos(7));
        assertThat(PortPrediction.fireDelayNanos(0, 0)).isZero();
        assertThat(PortPrediction.fireDelayNanos(-5, 2)).isEqualTo(1);
    }
}
