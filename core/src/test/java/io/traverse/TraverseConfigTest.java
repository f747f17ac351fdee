package io.traverse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.traverse.config.ConfigKey;
import io.traverse.config.ConfigSources;
import io.traverse.config.PortRange;
import io.traverse.firewall.FirewallRule;
import io.traverse.identity.IpLiterals;
import io.traverse.identity.Subnet;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Every key's accepted and refused values, through the same path a system property takes. */
class TraverseConfigTest {
    private static final String ORIGIN = "system property under test";

    private static TraverseConfig with(ConfigKey key, String value) {
        Map<String, ConfigSources.Setting> settings = new java.util.HashMap<>();
        settings.put(key.key(), new ConfigSources.Setting(value, ORIGIN));
        return TraverseConfig.builderFrom(settings).build();
    }

    private static void assertRefused(ConfigKey key, String value) {
        assertThatThrownBy(() -> with(key, value))
                .as("%s = '%s'", key.key(), value)
                .isInstanceOf(TraverseConfigException.class)
                .hasMessageContaining(key.key())
                .hasMessageContaining("'" + value + "'")
                .hasMessageContaining(ORIGIN)
                .hasMessageContaining(key.form());
    }

    @Test
    void defaults() {
        TraverseConfig c = TraverseConfig.defaults();
        assertThat(c.hubs()).isEmpty();
        assertThat(c.modules()).containsExactly("direct", "reverse", "splice", "routed", "longpoll");
        assertThat(c.modulesConfigured()).isFalse();
        assertThat(c.token()).isEmpty();
        assertThat(c.keyFile()).isEmpty();
        assertThat(c.bindAddress()).isEmpty();
        assertThat(c.portRange().isAny()).isTrue();
        assertThat(c.externals()).isEmpty();
        assertThat(c.firewall()).isEmpty();
        assertThat(c.connectTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(c.connectStagger()).isEqualTo(Duration.ofMillis(100));
        assertThat(c.handshakeTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(c.maxPendingHandshakes()).isEqualTo(1024);
        assertThat(c.acceptBacklog()).isEqualTo(50);
        assertThat(c.cacheTtl()).isEqualTo(Duration.ofMinutes(10));
        assertThat(c.discovery()).isTrue();
        assertThat(c.hubKeepalive()).isEqualTo(Duration.ofSeconds(2));
        assertThat(c.hubTimeout()).isEqualTo(Duration.ofSeconds(10));
        for (ConfigKey key : ConfigKey.values()) {
            with(key, key.defaultValue()); // every default is itself a valid value
        }
    }

    @Test
    void hubsKeepHostNamesUnresolved() {
        List<InetSocketAddress> hubs = with(
                        ConfigKey.HUBS, " hub1.example.invalid:17000, 198.18.0.1:17001,[fd00::1]:17002 ,")
                .hubs();
        assertThat(hubs).hasSize(3);
        assertThat(hubs.get(0).isUnresolved()).isTrue();
        assertThat(hubs.get(0).getHostString()).isEqualTo("hub1.example.invalid");
        assertThat(hubs.get(0).getPort()).isEqualTo(17000);
        assertThat(hubs.get(1)).isEqualTo(new InetSocketAddress(IpLiterals.parse("198.18.0.1"), 17001));
        assertThat(hubs.get(2)).isEqualTo(new InetSocketAddress(IpLiterals.parse("fd00::1"), 17002));
        assertThat(with(ConfigKey.HUBS, "").hubs()).isEmpty();
        for (String bad : List.of(
                "hub1",
                "hub1:0",
                "hub1:65536",
                "hub1:x",
                "bad_host:1",
                "-hub:1",
                "[fd00::1",
                "[fd00::1]",
                "[fd00::1]17000",
                "fd00::1",
                "hub1:17000,hub2")) {
            assertRefused(ConfigKey.HUBS, bad);
        }
    }

    @Test
    void modules() {
        TraverseConfig c = with(ConfigKey.MODULES, " Direct , routed ");
        assertThat(c.modules()).containsExactly("direct", "routed");
        assertThat(c.modulesConfigured()).isTrue();
        for (String bad : List.of("", " , ", "direct,direct", "di rect", "1direct", "direct,rout_ed")) {
            assertRefused(ConfigKey.MODULES, bad);
        }
    }

    @Test
    void tokenAndKeyFile() {
        assertThat(with(ConfigKey.TOKEN, "s3cret value").token()).contains("s3cret value");
        assertThat(with(ConfigKey.TOKEN, "").token()).isEmpty();
        assertThat(with(ConfigKey.TOKEN, "s3cret").toString()).doesNotContain("s3cret");
        assertThat(with(ConfigKey.KEY_FILE, "/etc/traverse/node.key").keyFile())
                .contains(java.nio.file.Path.of("/etc/traverse/node.key"));
        assertThat(with(ConfigKey.KEY_FILE, "").keyFile()).isEmpty();
    }

    @Test
    void bindTakesAnIpLiteralOnly() {
        assertThat(with(ConfigKey.BIND, "127.0.0.1").bindAddress()).contains(IpLiterals.parse("127.0.0.1"));
        assertThat(with(ConfigKey.BIND, "::1").bindAddress()).contains(IpLiterals.parse("::1"));
        assertThat(with(ConfigKey.BIND, "*").bindAddress()).isEmpty();
        assertThat(with(ConfigKey.BIND, "").bindAddress()).isEmpty();
        for (String bad : List.of("localhost", "127.0.0.256", "eth0")) {
            assertRefused(ConfigKey.BIND, bad);
        }
    }

    @Test
    void portRange() {
        assertThat(with(ConfigKey.PORT_RANGE, "5000-5002,6000").portRange())
                .isEqualTo(PortRange.parse("5000-5002,6000"));
        assertThat(with(ConfigKey.PORT_RANGE, "0").portRange().isAny()).isTrue();
        for (String bad : List.of("70000", "5002-5000", "x")) {
            assertRefused(ConfigKey.PORT_RANGE, bad);
        }
    }

    @Test
    void externalsAreIpAddressesWithAnOptionalPort() {
        List<InetSocketAddress> ext = with(
                        ConfigKey.EXTERNAL,
                        "203.0.113.7:6000, 198.51.100.1,[2001:db8::1]:7000,2001:db8::2,[2001:db8::3]")
                .externals();
        assertThat(ext)
                .containsExactly(
                        new InetSocketAddress(IpLiterals.parse("203.0.113.7"), 6000),
                        new InetSocketAddress(IpLiterals.parse("198.51.100.1"), 0),
                        new InetSocketAddress(IpLiterals.parse("2001:db8::1"), 7000),
                        new InetSocketAddress(IpLiterals.parse("2001:db8::2"), 0),
                        new InetSocketAddress(IpLiterals.parse("2001:db8::3"), 0));
        for (String bad : List.of(
                "gw.example.org:6000",
                "gw.example.org",
                "203.0.113.7:0",
                "203.0.113.7:65536",
                "203.0.113.7:x",
                "[2001:db8::1]x",
                "[2001:db8::1")) {
            assertRefused(ConfigKey.EXTERNAL, bad);
        }
    }

    @Test
    void firewallRules() {
        List<FirewallRule> rules = with(ConfigKey.FIREWALL, "allow:10.1.0.0/16, deny:fd00::/8,drop:all")
                .firewall();
        assertThat(rules)
                .containsExactly(
                        new FirewallRule(FirewallRule.Action.ALLOW, Subnet.parse("10.1.0.0/16")),
                        new FirewallRule(FirewallRule.Action.DENY, Subnet.parse("fd00::/8")),
                        new FirewallRule(FirewallRule.Action.DROP, null));
        for (String bad : List.of("permit:all", "allow", "allow:10.0.0.0/33", "allow:host.example", "allow:all,deny")) {
            assertRefused(ConfigKey.FIREWALL, bad);
        }
    }

    @Test
    void durations() {
        assertThat(with(ConfigKey.CONNECT_TIMEOUT, "250ms").connectTimeout()).isEqualTo(Duration.ofMillis(250));
        assertThat(with(ConfigKey.CONNECT_TIMEOUT, "5s").connectTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(with(ConfigKey.CONNECT_TIMEOUT, "2m").connectTimeout()).isEqualTo(Duration.ofMinutes(2));
        assertThat(with(ConfigKey.CONNECT_TIMEOUT, "1h").connectTimeout()).isEqualTo(Duration.ofHours(1));
        assertThat(with(ConfigKey.CONNECT_TIMEOUT, "1500").connectTimeout()).isEqualTo(Duration.ofMillis(1500));
        assertThat(with(ConfigKey.CONNECT_TIMEOUT, " 3 S ").connectTimeout()).isEqualTo(Duration.ofSeconds(3));
        assertThat(with(ConfigKey.CONNECT_STAGGER, "0").connectStagger()).isZero();
        assertThat(with(ConfigKey.HANDSHAKE_TIMEOUT, "750ms").handshakeTimeout())
                .isEqualTo(Duration.ofMillis(750));
        assertThat(with(ConfigKey.CACHE_TTL, "0").cacheTtl()).isZero();
        assertThat(with(ConfigKey.CACHE_TTL, "30s").cacheTtl()).isEqualTo(Duration.ofSeconds(30));

        for (ConfigKey key : List.of(
                ConfigKey.CONNECT_TIMEOUT,
                ConfigKey.CONNECT_STAGGER,
                ConfigKey.HANDSHAKE_TIMEOUT,
                ConfigKey.CACHE_TTL)) {
            for (String bad : List.of("", "-1s", "1.5s", "5d", "s", "5 sec", "1234567890ms", "999999999h")) {
                assertRefused(key, bad);
            }
        }
        assertRefused(ConfigKey.CONNECT_TIMEOUT, "0");
        assertRefused(ConfigKey.HANDSHAKE_TIMEOUT, "0ms");
        assertRefused(ConfigKey.HUB_KEEPALIVE, "0");
        assertRefused(ConfigKey.HUB_TIMEOUT, "0s");
        assertThat(with(ConfigKey.HUB_KEEPALIVE, "500ms").hubKeepalive()).isEqualTo(Duration.ofMillis(500));
    }

    @Test
    void discoverySwitch() {
        assertThat(with(ConfigKey.DISCOVERY, "false").discovery()).isFalse();
        assertThat(with(ConfigKey.DISCOVERY, " OFF ").discovery()).isFalse();
        assertThat(with(ConfigKey.DISCOVERY, "yes").discovery()).isTrue();
        assertRefused(ConfigKey.DISCOVERY, "maybe");
        assertRefused(ConfigKey.DISCOVERY, "");
        assertThat(with(ConfigKey.DISCOVERY_PORT, "17001").discoveryPort()).isEqualTo(17001);
        assertRefused(ConfigKey.DISCOVERY_PORT, "0");
        assertRefused(ConfigKey.DISCOVERY_PORT, "65536");
    }

    @Test
    void everyAcceptedDurationCanBeUsedInNanoseconds() {
        // The node turns durations into nanoseconds (deadlines, cache ttl): nothing the config accepts may overflow
        // there.
        for (String value : List.of("999999999ms", "999999999s", "2562047h", "153722867m")) {
            for (ConfigKey key : List.of(ConfigKey.CONNECT_TIMEOUT, ConfigKey.CACHE_TTL)) {
                Duration d;
                try {
                    TraverseConfig c = with(key, value);
                    d = key == ConfigKey.CONNECT_TIMEOUT ? c.connectTimeout() : c.cacheTtl();
                } catch (TraverseConfigException refused) {
                    continue;
                }
                assertThat(d.toNanos()).as("%s = %s", key.key(), value).isPositive();
            }
        }
        assertThatThrownBy(() -> TraverseConfig.builder().cacheTtl(Duration.ofDays(365L * 1000)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> TraverseConfig.builder().connectTimeout(Duration.ofDays(365L * 1000)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void wholeNumbers() {
        assertThat(with(ConfigKey.HANDSHAKE_PENDING, "16").maxPendingHandshakes())
                .isEqualTo(16);
        assertThat(with(ConfigKey.ACCEPT_BACKLOG, "1").acceptBacklog()).isEqualTo(1);
        for (ConfigKey key : List.of(ConfigKey.HANDSHAKE_PENDING, ConfigKey.ACCEPT_BACKLOG)) {
            for (String bad : List.of("0", "-1", "x", "1.5", "", "99999999999")) {
                assertRefused(key, bad);
            }
        }
    }

    @Test
    void builderSettersValidateToo() {
        TraverseConfig c = TraverseConfig.builder()
                .bind("127.0.0.1")
                .portRange("5000-5001")
                .keyFile(java.nio.file.Path.of("n1.key"))
                .set("traverse.connect.stagger", "50ms")
                .modules("direct")
                .token("t")
                .build();
        assertThat(c.bindAddress()).contains(IpLiterals.parse("127.0.0.1"));
        assertThat(c.portRange().ports()).containsExactly(5000, 5001);
        assertThat(c.keyFile()).contains(java.nio.file.Path.of("n1.key"));
        assertThat(c.connectStagger()).isEqualTo(Duration.ofMillis(50));
        assertThat(c.modules()).containsExactly("direct");
        assertThat(c.modulesConfigured()).isTrue();
        assertThatThrownBy(() -> TraverseConfig.builder().set("traverse.nope", "1"))
                .isInstanceOf(TraverseConfigException.class)
                .hasMessageContaining("traverse.nope");
        assertThatThrownBy(() -> TraverseConfig.builder().bind("localhost"))
                .isInstanceOf(TraverseConfigException.class)
                .hasMessageContaining("traverse.bind")
                .hasMessageContaining("code");
        assertThatThrownBy(() -> TraverseConfig.builder().modules("Direct"))
                .isInstanceOf(TraverseConfigException.class);
        assertThatThrownBy(() -> TraverseConfig.builder().modules(List.of()))
                .isInstanceOf(TraverseConfigException.class);
        assertThatThrownBy(() -> TraverseConfig.builder().connectStagger(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> TraverseConfig.builder().acceptBacklog(0))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
