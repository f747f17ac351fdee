package io.traverse.testbed;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Java RMI as a tested use. A node behind a home NAT behind a carrier-grade NAT, both
 * dropping what comes in, exports a registry and an object with Traverse's RMI socket factories
 * under the name {@code checksums}. Cold JVMs at four other places look the object up by that name
 * at once, send 1 MiB (its SHA-256 checked by the server), fetch 4 MiB (checked) and make 200 small
 * calls: a public host, an office behind a NAT that drops what comes in, a site behind a
 * port-randomising NAT, and a site whose only way out is an HTTP proxy. Two run at a time (the
 * machine has 2 cores). Nothing in any JVM sets {@code java.rmi.server.hostname}.
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
        Site randomising = testbed.get().site("random", "10.0.9.0/24");
        Site proxied = testbed.get().site("proxied", "10.0.10.0/24");
        for (Site s : new Site[] {carrier, home, office, randomising, proxied}) {
            s.router().firewall(Firewall.dropInbound());
        }
        randomising.router().nat(NatMode.MASQUERADE_RANDOM);
        SiteHttpProxy proxy = SiteHttpProxy.start(proxied);
        Host serverHost = home.host("server", "10.0.7.2");
        String hub = HubAgent.startOn(hubHost, HUB_PORT, TOKEN);
        RunningNode server = RunningNode.start(
                serverHost,
                NodeSettings.linkedTo(hub, TOKEN).bind(serverHost.address()).rmiName("checksums"));
        log.info("Exported behind double NAT on {}", server.address());

        Host officeHost = office.host("client", "10.0.8.2");
        Host randomHost = randomising.host("client", "10.0.9.2");
        Host proxiedHost = proxied.host("client", "10.0.10.2");
        Map<String, CompletableFuture<String>> results = new LinkedHashMap<>();
        results.put("a public host", call(publicHost, hub, null));
        results.put("an office behind a dropping NAT", call(officeHost, hub, null));
        results.values().forEach(CompletableFuture::join); // two at a time on 2 cores
        results.put("a site behind a port-randomising NAT", call(randomHost, hub, null));
        results.put("a site whose only way out is an HTTP proxy", call(proxiedHost, hub, proxy.authority()));

        String expected = "up=" + UP + " down=" + DOWN + " calls=" + CALLS;
        for (Map.Entry<String, CompletableFuture<String>> e : results.entrySet()) {
            String result = e.getValue().join();
            log.info("RMI from {}, cold: {}", e.getKey(), result);
            assertThat(result)
                    .as(() -> e.getKey() + ": " + result + "\nserver's log:\n" + server.recentLog())
                    .startsWith("rmi ok")
                    .endsWith(expected);
        }
    }

    private static CompletableFuture<String> call(Host host, String hub, String httpProxy) {
        NodeSettings settings = NodeSettings.linkedTo(hub, TOKEN).bind(host.address());
        if (httpProxy != null) {
            settings.set("traverse.http.proxy", httpProxy);
        }
        return CompletableFuture.supplyAsync(
                () -> RunningNode.coldRmiCall(host, settings, "checksums", UP, DOWN, CALLS, Duration.ofSeconds(60)));
    }
}
