package io.traverse.testbed;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A router's firewall as a connecting machine sees it, probed with bash's {@code /dev/tcp} from a
 * public host: open and rejecting routers refuse at once, a dropping router leaves the caller
 * waiting; the counter sees every attempt either way.
 */
@Timeout(60)
class NatRouterFirewallTest {
    private static final int PORT = 17000;

    @RegisterExtension
    final FreshTestbed testbed = new FreshTestbed();

    private Site site;
    private Host outsider;
    private ConnectionCounter arrivals;

    @BeforeEach
    void start() {
        site = testbed.get().site("site", "10.0.0.0/24");
        outsider = testbed.get().internet().host("outsider");
        arrivals = ConnectionCounter.install(site.router().namespace(), PORT);
    }

    /** Exit code of a TCP connect from the outsider to the router's public address, and how long it took. */
    private record Probe(int exitCode, long millis, String stderr) {}

    private Probe probe() {
        String target = "/dev/tcp/" + site.router().publicAddress().getHostAddress() + "/" + PORT;
        long start = System.nanoTime();
        CommandResult r = outsider.namespace()
                .execAllowingFailure(
                        Duration.ofSeconds(10), null, List.of("timeout", "1.5", "bash", "-c", "exec 3<>" + target));
        return new Probe(r.exitCode(), (System.nanoTime() - start) / 1_000_000, r.stderr());
    }

    @Test
    void openRouterResetsConnectionsToPortsItDoesNotForward() {
        Probe p = probe();
        assertThat(p.exitCode()).as(p.toString()).isEqualTo(1);
        assertThat(p.stderr()).contains("Connection refused");
        assertThat(arrivals.count()).isEqualTo(1);
    }

    @Test
    void rejectingFirewallRefusesAtOnce() {
        site.router().firewall(Firewall.rejectInbound());
        Probe p = probe();
        assertThat(p.exitCode()).as(p.toString()).isEqualTo(1);
        assertThat(p.stderr()).contains("Connection refused");
        assertThat(p.millis()).isLessThan(1_000);
        assertThat(arrivals.count()).isEqualTo(1);
    }

    @Test
    void droppingFirewallLeavesTheCallerWaiting() {
        site.router().firewall(Firewall.dropInbound());
        Probe p = probe();
        assertThat(p.exitCode())
                .as("timeout(1) exit code: still connecting when killed; " + p)
                .isEqualTo(124);
        assertThat(p.millis()).isGreaterThanOrEqualTo(1_400);
        assertThat(arrivals.count()).isGreaterThanOrEqualTo(1);

        site.router().firewall(Firewall.open());
        assertThat(probe().exitCode()).as("after opening again").isEqualTo(1);
    }
}
