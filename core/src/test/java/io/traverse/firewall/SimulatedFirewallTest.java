package io.traverse.firewall;

import static org.assertj.core.api.Assertions.assertThat;

import io.traverse.identity.IpLiterals;
import java.util.List;
import org.junit.jupiter.api.Test;

class SimulatedFirewallTest {
    @Test
    void firstMatchingRuleWins() {
        SimulatedFirewall fw = new SimulatedFirewall(List.of(
                FirewallRule.parse("allow:10.1.0.0/16"),
                FirewallRule.parse("deny:10.0.0.0/8"),
                FirewallRule.parse("allow:10.2.0.0/16"), // never reached: the rule above matches first
                FirewallRule.parse("drop:all")));
        assertThat(fw.check(IpLiterals.parse("10.1.2.3")).action()).isEqualTo(FirewallRule.Action.ALLOW);
        assertThat(fw.check(IpLiterals.parse("10.2.0.1")).action()).isEqualTo(FirewallRule.Action.DENY);
        assertThat(fw.check(IpLiterals.parse("10.2.0.1")).rule()).isEqualTo(FirewallRule.parse("deny:10.0.0.0/8"));
        assertThat(fw.check(IpLiterals.parse("192.168.0.1")).action()).isEqualTo(FirewallRule.Action.DROP);
        assertThat(fw.check(IpLiterals.parse("::1")).action()).isEqualTo(FirewallRule.Action.DROP);
    }

    @Test
    void noMatchMeansAllow() {
        SimulatedFirewall open = new SimulatedFirewall(List.of());
        SimulatedFirewall.Verdict v = open.check(IpLiterals.parse("203.0.113.7"));
        assertThat(v.action()).isEqualTo(FirewallRule.Action.ALLOW);
        assertThat(v.rule()).isNull();

        SimulatedFirewall narrow = new SimulatedFirewall(List.of(FirewallRule.parse("deny:127.0.3.0/24")));
        assertThat(narrow.check(IpLiterals.parse("127.0.4.1")).action()).isEqualTo(FirewallRule.Action.ALLOW);
        assertThat(narrow.check(IpLiterals.parse("127.0.3.1")).action()).isEqualTo(FirewallRule.Action.DENY);
    }

    @Test
    void verdictDescribesRuleAndSource() {
        SimulatedFirewall fw = new SimulatedFirewall(List.of(FirewallRule.parse("deny:127.0.3.0/24")));
        assertThat(fw.check(IpLiterals.parse("127.0.3.9")).describe(IpLiterals.parse("127.0.3.9")))
                .contains("deny:127.0.3.0/24")
                .contains("denies")
                .contains("127.0.3.9");
        assertThat(fw.check(IpLiterals.parse("127.0.4.9")).describe(IpLiterals.parse("127.0.4.9")))
                .contains("(none)")
                .contains("allows");
        assertThat(fw.rules()).containsExactly(FirewallRule.parse("deny:127.0.3.0/24"));
    }
}
