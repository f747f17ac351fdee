package io.traverse.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class PortRangeTest {
    @Test
    void parsesPortsAndRangesInOrder() {
        PortRange r = PortRange.parse("5000-5002, 6000 ,7000-7000");
        assertThat(r.isAny()).isFalse();
        assertThat(r.ports()).containsExactly(5000, 5001, 5002, 6000, 7000);
        assertThat(PortRange.parse("1-65535").ports()).hasSize(65535);
        assertThat(PortRange.parse("5000-5002,6000")).isEqualTo(PortRange.parse(" 5000-5002 , 6000 "));
        assertThat(PortRange.parse("5000-5002,6000")).hasToString("5000-5002,6000");
    }

    @Test
    void zeroOrEmptyMeansAnyPort() {
        assertThat(PortRange.parse("0")).isSameAs(PortRange.ANY);
        assertThat(PortRange.parse(" ")).isSameAs(PortRange.ANY);
        assertThat(PortRange.ANY.isAny()).isTrue();
        assertThat(PortRange.ANY.ports()).isEmpty();
    }

    @Test
    void rejectsWhatIsNotAPortList() {
        for (String bad : List.of(
                "65536", "0-10", "5000-", "-5000", "a", "5000-abc", "5002-5000", "1.5", ",5000", "5000--5001")) {
            assertThatThrownBy(() -> PortRange.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> PortRange.parse("5002-5000"))
                .hasMessageContaining("5002-5000")
                .hasMessageContaining("ends before");
        assertThatThrownBy(() -> PortRange.parse("5000,70000"))
                .hasMessageContaining("70000")
                .hasMessageContaining("1-65535");
    }
}
