package io.traverse.direct;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.traverse.TraverseConfig;
import io.traverse.TraverseConfigException;
import io.traverse.identity.IpLiterals;
import io.traverse.settings.SshTunnelRule;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The direct module's traverse.ssh.tunnels key, through the node's configuration. */
class SshTunnelRuleTest {
    @Test
    void rulesParseWithGatewayOrTargetItselfAndFirstMatchWins() {
        List<SshTunnelRule> rules = TraverseConfig.builder()
                .set(
                        "traverse.ssh.tunnels",
                        "10.1.0.0/16 user=alice key=/k/a gateway=198.18.1.1:2222 passphrase=pw known-hosts=/k/kh;"
                                + " all user=bob key=/k/b")
                .build()
                .get(DirectModuleProvider.SSH_TUNNELS);
        assertThat(rules).hasSize(2);
        SshTunnelRule site = rules.get(0);
        assertThat(site.covers(IpLiterals.parse("10.1.4.5"))).isTrue();
        assertThat(site.covers(IpLiterals.parse("10.2.4.5"))).isFalse();
        assertThat(site.sshHostFor(IpLiterals.parse("10.1.4.5"))).isEqualTo("198.18.1.1");
        assertThat(site.port()).isEqualTo(2222);
        assertThat(site.passphrase()).contains("pw");
        assertThat(site.knownHostsFile()).isEqualTo(Path.of("/k/kh"));
        assertThat(site.toString()).doesNotContain("pw");
        SshTunnelRule any = rules.get(1);
        assertThat(any.sshHostFor(IpLiterals.parse("198.18.7.7"))).isEqualTo("198.18.7.7");
        assertThat(any.port()).isEqualTo(22);
        assertThat(any.knownHostsFile().toString()).endsWith(".ssh/known_hosts");
    }

    @Test
    void missingUserOrKeyOrUnknownSettingNamesTheKey() {
        assertThatThrownBy(() -> TraverseConfig.builder()
                        .set("traverse.ssh.tunnels", "10.0.0.0/8 key=/k")
                        .build())
                .isInstanceOf(TraverseConfigException.class)
                .hasMessageContaining("traverse.ssh.tunnels")
                .hasMessageContaining("user=NAME");
        assertThatThrownBy(() -> TraverseConfig.builder()
                        .set("traverse.ssh.tunnels", "10.0.0.0/8 user=a")
                        .build())
                .isInstanceOf(TraverseConfigException.class)
                .hasMessageContaining("key=FILE");
        assertThatThrownBy(() -> TraverseConfig.builder()
                        .set("traverse.ssh.tunnels", "10.0.0.0/8 user=a key=/k password=x")
                        .build())
                .isInstanceOf(TraverseConfigException.class)
                .hasMessageContaining("unknown ssh tunnel setting 'password'");
        assertThat(TraverseConfig.builder().build().get(DirectModuleProvider.SSH_TUNNELS))
                .isEmpty();
    }
}
