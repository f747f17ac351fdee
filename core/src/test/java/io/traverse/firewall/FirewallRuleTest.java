package io.traverse.firewall;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.traverse.identity.IpLiterals;
import io.traverse.identity.Subnet;
import java.util.List;
import org.junit.jupiter.api.Test;

class FirewallRuleTest {
    @Test
    void parsesActionsAndNetworks() {
        assertThat(FirewallRule.parse("allow:10.0.0.0/8"))
                .isEqualTo(new FirewallRule(FirewallRule.Action.ALLOW, Subnet.parse("10.0.0.0/8")));
        assertThat(FirewallRule.parse(" DENY:all ")).isEqualTo(new FirewallRule(FirewallRule.Action.DENY, null));
        assertThat(FirewallRule.parse("drop:*")).isEqualTo(FirewallRule.drop("all"));
        assertThat(FirewallRule.parse("deny:192.168.1.5").network()).isEqualTo(Subnet.parse("192.168.1.5/32"));
        assertThat(FirewallRule.parse("allow:fd00::/8").network()).isEqualTo(Subnet.parse("fd00::/8"));
        assertThat(FirewallRule.allow("127.0.3.0/24")).isEqualTo(FirewallRule.parse("allow:127.0.3.0/24"));
    }

    @Test
    void textFormRoundTrips() {
        for (String text :
                List.of("allow:10.0.0.0/8", "deny:all", "drop:fd00::/8", "allow:127.0.3.0/24", "deny:198.18.0.1/32")) {
            FirewallRule rule = FirewallRule.parse(text);
            assertThat(rule).hasToString(text);
            assertThat(FirewallRule.parse(rule.toString())).isEqualTo(rule);
        }
    }

    @Test
    void matchesBySourceNetwork() {
        FirewallRule rule = FirewallRule.parse("deny:10.1.0.0/16");
        assertThat(rule.matches(IpLiterals.parse("10.1.255.255"))).isTrue();
        assertThat(rule.matches(IpLiterals.parse("10.2.0.0"))).isFalse();
        assertThat(rule.matches(IpLiterals.parse("::1"))).isFalse();
        assertThat(FirewallRule.parse("deny:all").matches(IpLiterals.parse("::1")))
                .isTrue();
    }

    @Test
    void errorsNameTheRuleAndThePart() {
        assertThatThrownBy(() -> FirewallRule.parse("permit:all"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("permit:all")
                .hasMessageContaining("'permit'");
        assertThatThrownBy(() -> FirewallRule.parse("allow"))
                .hasMessageContaining("'allow'")
                .hasMessageContaining("allow:NETWORK");
        assertThatThrownBy(() -> FirewallRule.parse("allow:10.0.0.0/33"))
                .hasMessageContaining("allow:10.0.0.0/33")
                .hasMessageContaining("33");
        assertThatThrownBy(() -> FirewallRule.parse("allow:intranet.example")).hasMessageContaining("intranet.example");
        assertThatThrownBy(() -> FirewallRule.parse("allow:")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new FirewallRule(null, null)).isInstanceOf(IllegalArgumentException.class);
    }
}
