package io.traverse.hublink;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class NameRegistrationsTest {
    @Test
    void onlyConfirmedNamesAreRegisteredAgain() {
        NameRegistrations n = new NameRegistrations();
        assertThat(n.reserve("a", 1)).isTrue();
        assertThat(n.reserve("a", 2)).isFalse();
        assertThat(n.reserve("b", 2)).isTrue();
        assertThat(n.confirmed()).isEmpty();
        assertThat(n.confirm("a", 1)).isTrue();
        assertThat(n.confirmed()).isEqualTo(Map.of("a", 1));
        assertThat(n.portOf("b")).isEqualTo(2);
    }

    @Test
    void aNameReleasedWhileItsBindingTravelsIsNotConfirmed() {
        NameRegistrations n = new NameRegistrations();
        n.reserve("a", 1);
        assertThat(n.remove("a", 1)).isTrue();
        assertThat(n.confirm("a", 1)).isFalse();
        assertThat(n.remove("a", 1)).isFalse();
        assertThat(n.confirmed()).isEmpty();
    }
}
