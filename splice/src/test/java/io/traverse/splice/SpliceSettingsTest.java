package io.traverse.splice;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.traverse.TraverseConfig;
import io.traverse.TraverseConfigException;
import org.junit.jupiter.api.Test;

/** The splice module's keys, through the node's configuration. */
class SpliceSettingsTest {
    @Test
    void theDefaultsAndSetValuesReachTheModuleAndBadOnesFailWithTheKey() {
        assertThat(SpliceSettings.of(TraverseConfig.defaults()))
                .isEqualTo(new SpliceSettings(PortPrediction.Strategy.PRESERVE, 1));
        TraverseConfig set = TraverseConfig.builder()
                .set("traverse.splice.prediction", "sequential")
                .set("traverse.splice.ports", "4")
                .build();
        assertThat(SpliceSettings.of(set)).isEqualTo(new SpliceSettings(PortPrediction.Strategy.SEQUENTIAL, 4));

        assertThatThrownBy(() -> TraverseConfig.builder().set("traverse.splice.ports", "17"))
                .isInstanceOf(TraverseConfigException.class)
                .hasMessageContaining("traverse.splice.ports = '17' (from code) is invalid")
                .hasMessageContaining("expected a whole number from 1 to 16");
        assertThatThrownBy(() -> TraverseConfig.builder().set("traverse.splice.prediction", "random"))
                .isInstanceOf(TraverseConfigException.class)
                .hasMessageContaining("traverse.splice.prediction");
    }
}
