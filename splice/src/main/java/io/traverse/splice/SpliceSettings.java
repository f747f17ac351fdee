package io.traverse.splice;

import io.traverse.TraverseConfig;
import io.traverse.config.ConfigValues;
import io.traverse.config.ModuleKey;
import java.util.List;

/**
 * The keys the splice module declares, and their values for one node.
 *
 * @param prediction which NATs it predicts ports for
 * @param ports how many consecutive ports from the predicted one it tries
 */
record SpliceSettings(PortPrediction.Strategy prediction, int ports) {
    static final ModuleKey<PortPrediction.Strategy> PREDICTION = ModuleKey.of(
            "traverse.splice.prediction",
            "preserve",
            "preserve or sequential: which NATs the splice module predicts ports for (preserve: only NATs that keep the mapped port; sequential: also NATs that hand out the next ports)",
            v -> PortPrediction.Strategy.parse(ConfigValues.oneOf(v, "preserve", "sequential")));
    static final ModuleKey<Integer> PORTS = ModuleKey.of(
            "traverse.splice.ports",
            "1",
            "a whole number from 1 to 16: how many consecutive ports from the predicted one the splice module tries",
            v -> ConfigValues.between(v, 1, 16));

    static final List<ModuleKey<?>> KEYS = List.of(PREDICTION, PORTS);

    /** The node's values of these keys, each checked when it was set. */
    static SpliceSettings of(TraverseConfig config) {
        return new SpliceSettings(config.get(PREDICTION), config.get(PORTS));
    }
}
