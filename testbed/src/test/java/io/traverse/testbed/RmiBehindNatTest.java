package io.traverse.testbed;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Java RMI as a tested use (issue 23 §2). A node behind a home NAT behind a carrier-grade NAT, both
 * dropping what comes in, exports a registry and an object with Traverse's RMI socket factories
 * under the name {@code checksums}. Cold JVMs on a public host and at another NAT'd site look the
 * object up by that name at once, send 1 MiB (its SHA-256 checked by the server), fetch 4 MiB
 * (checked) and make 200 small calls. Nothing in either JVM sets {@code java.rmi.server.hostname}.
 */
@Timeout(180)
class RmiBehindNatTest {
    private static final Logger log = LoggerFactory.getLogger(RmiBehindNatTest.class);
    private static final String TOKEN = "testbed-rmi-token";
    private static final int HUB_PORT = 17000;
    private static final int UP = 1 << 20;
    private static final int DOWN = 4 << 20;
    private static final int CALLS = 200;

    @RegisterExtension
    final FreshTestbed testbed = new FreshTestbed();

    @Test
    void anObjectExportedBehindDoubleNatIsCalledByNameFromColdJvmsElsewhere() throws Exception {
        Host hubHost = testbed.get().internet().host("hub");
        Host publicHost = testbed.get().internet().host("public");
        Site carrier = testbed.get().site("carrier", "100.64.7.0/24");
        Site home = carrier.siteBehind("home", "10.0.7.0/24");
        Site office = testbed.get().site("office", "10.0.8.0/24");
        carrier.router().firewall(Firewall.dropInbound());
        home.router().firewall(Firewall.dropInbound());
        office.router().firewall(Firewall.dropInbound());
        Host serverHost = home.host("server", "10.0.7.2");
        Host officeHost = office.host("client", "10.0.8.2");
        String hub = HubAgent.startOn(hubHost, HUB_PORT, TOKEN);
        RunningNode server = RunningNode.start(serverHost, NodeSettings.linkedTo(hub, TOKEN).bind(serverHost.address())
                .rmiName("checksums"));
        log.info("Exported behind double NAT on {}", server.address());

        CompletableFuture<String> fromPublic = CompletableFuture.supplyAsync(() -> RunningNode.coldRmiCall(publicHost,
                NodeSettings.linkedTo(hub, TOKEN).bind(publicHost.address()), "checksums", UP, DOWN, CALLS, Duration.ofSeconds(60)));
        CompletableFuture<String> fromOffice = CompletableFuture.supplyAsync(() -> RunningNode.coldRmiCall(officeHost,
                NodeSettings.linkedTo(hub, TOKEN).bind(officeHost.address()), "checksums", UP, DOWN, CALLS, Duration.ofSeconds(60)));
        String publicResult = fromPublic.join();
        String officeResult = fromOffice.join();
        log.info("RMI from a public host, cold: {}", publicResult);
        log.info("RMI from another NAT'd site, cold: {}", officeResult);
        String expected = "up=" + UP + " down=" + DOWN + " calls=" + CALLS;
        assertThat(publicResult).as(() -> publicResult + "\nserver's log:\n" + server.recentLog()).startsWith("rmi ok").endsWith(expected);
        assertThat(officeResult).as(() -> officeResult + "\nserver's log:\n" + server.recentLog()).startsWith("rmi ok").endsWith(expected);
    }
}
