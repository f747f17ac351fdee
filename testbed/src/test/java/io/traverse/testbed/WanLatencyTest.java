package io.traverse.testbed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * WAN latency on the testbed's internet: the model's arithmetic, and on a real testbed the round
 * trip a TCP connect sees between public hosts and through a site's NAT router, which must be the
 * model's (a refused connect costs one round trip; the best of a few is taken, since a 2-core
 * machine adds its own delays but never removes the switch's).
 */
@Timeout(90)
class WanLatencyTest {
    @RegisterExtension
    final FreshTestbed testbed = new FreshTestbed();

    @Test
    void delaysAddUpFromAccessLatenciesUnlessARoundTripIsGiven() {
        WanLatency latency = WanLatency.access(Map.of("home", Duration.ofMillis(5), "lab", Duration.ofMillis(20)))
                .withRoundTrip("lab", "cloud", Duration.ofMillis(90));
        assertThat(latency.oneWay("home", "lab")).isEqualTo(Duration.ofMillis(25));
        assertThat(latency.roundTrip("lab", "home")).isEqualTo(Duration.ofMillis(50));
        assertThat(latency.oneWay("cloud", "lab")).isEqualTo(Duration.ofMillis(45));
        assertThat(latency.oneWay("home", "elsewhere")).isEqualTo(Duration.ofMillis(5));
        assertThat(latency.placeOf("home-router")).isEqualTo("home");
        assertThat(latency.placeOf("homestead-fe")).isEqualTo("homestead-fe");
        assertThat(latency.placeOf("cloud")).isEqualTo("cloud");
        assertThat(latency.isNone()).isFalse();
        assertThat(WanLatency.none().isNone()).isTrue();
        assertThat(WanLatency.none().withHops(8).isNone())
                .as("routers need the switch")
                .isFalse();
        assertThat(WanLatency.none().withHops(8).hasDelay())
                .as("but delay nothing")
                .isFalse();
        assertThat(latency.hasDelay()).isTrue();
        assertThatThrownBy(() -> WanLatency.access(Map.of("x", Duration.ofMillis(-1))))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aConnectSeesTheRoundTripOfTheModelBetweenHostsAndThroughANat() {
        WanLatency latency = WanLatency.access(
                Map.of("near", Duration.ofMillis(2), "far", Duration.ofMillis(13), "home", Duration.ofMillis(5)));
        Testbed tb = testbed.get().wanLatency(latency);
        Host near = tb.internet().host("near");
        Host far = tb.internet().host("far");
        Site home = tb.site("home", "192.168.1.0/24");
        Host laptop = home.host("laptop");

        assertThat(bestRefusedConnectMillis(near, far.address().getHostAddress()))
                .isBetween(30.0, 45.0);
        assertThat(bestRefusedConnectMillis(laptop, far.address().getHostAddress()))
                .isBetween(36.0, 51.0);
        assertThat(bestRefusedConnectMillis(near, home.router().publicAddress().getHostAddress()))
                .isBetween(14.0, 29.0);
        assertThat(tb.internet().switchStats())
                .hasValueSatisfying(s -> assertThat(s).startsWith("forwarded"));
        assertThatThrownBy(() -> tb.wanLatency(WanLatency.none())).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void routerHopsTakeTheirShareOfTheTtlAndDropWhatRunsOutOnTheWay() {
        Testbed tb = testbed.get()
                .wanLatency(
                        WanLatency.access(Map.of("near", Duration.ofMillis(1))).withHops(8));
        Host near = tb.internet().host("near");
        Host far = tb.internet().host("far");
        ConnectionCounter arrivedWith56 = ConnectionCounter.installForTtl(far.namespace(), 9, 56);
        ConnectionCounter arrivedWith1 = ConnectionCounter.installForTtl(far.namespace(), 9, 1);
        ConnectionCounter arrived = ConnectionCounter.install(far.namespace(), 9);
        String connect = "exec 3<>/dev/tcp/" + far.address().getHostAddress() + "/9";

        CommandResult refused = near.namespace()
                .execAllowingFailure(Duration.ofSeconds(10), null, List.of("timeout", "2", "bash", "-c", connect));
        assertThat(refused.stderr())
                .as("a SYN with TTL 64 arrives, 8 hops later, and is refused")
                .contains("Connection refused");
        assertThat(arrivedWith56.count()).isEqualTo(1);

        near.namespace().writeSysctl("net/ipv4/ip_default_ttl", "9");
        near.namespace()
                .execAllowingFailure(Duration.ofSeconds(10), null, List.of("timeout", "2", "bash", "-c", connect));
        assertThat(arrivedWith1.count()).as("TTL 9 arrives with 1 left").isEqualTo(1);

        near.namespace().writeSysctl("net/ipv4/ip_default_ttl", "8");
        CommandResult lost = near.namespace()
                .execAllowingFailure(Duration.ofSeconds(10), null, List.of("timeout", "1", "bash", "-c", connect));
        assertThat(lost.exitCode())
                .as("the SYN died on the way: no answer, so timeout(1) ends the connect")
                .isEqualTo(124);
        assertThat(arrived.count())
                .as("only the two SYNs that had TTL to spare arrived")
                .isEqualTo(2);
        assertThat(tb.internet().switchStats())
                .hasValueSatisfying(st -> assertThat(st).doesNotContain("expired 0,"));
    }

    /** The fastest of five refused connects (port 9 listens nowhere) from {@code from} to {@code address}, timed inside bash. */
    private static double bestRefusedConnectMillis(Host from, String address) {
        String script = "for i in 1 2 3 4 5 6; do s=$EPOCHREALTIME; (exec 3<>/dev/tcp/" + address + "/9) 2>/dev/null; "
                + "e=$EPOCHREALTIME; echo \"$s $e\"; done";
        CommandResult r = from.namespace().exec(Duration.ofSeconds(20), null, List.of("bash", "-c", script));
        return r.stdout()
                .lines()
                .skip(1) // the first also pays for ARP
                .mapToDouble(line -> {
                    String[] t = line.trim().split(" ");
                    return (Double.parseDouble(t[1]) - Double.parseDouble(t[0])) * 1000;
                })
                .min()
                .orElseThrow();
    }
}
