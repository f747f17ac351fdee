package io.traverse.testbed;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Names where DNS is silent. A server on the internet registers {@code db-server} at
 * the hub network and also serves on a plain port that a site's DNS calls {@code web.example.test}.
 * Two sites behind NAT: at one, dnsmasq answers at once ({@code web.example.test}, NXDOMAIN for
 * anything else); at the other, every DNS query is dropped, as in locked-down networks. A cold JVM
 * at each connects by name at once, while its hub link is still coming up; the node asks DNS and
 * the hub network at the same time, so the silent site pays no resolver timeout (2 × 5 s).
 * Every connection sends 64 KiB, half-closes and checks the reply's length and SHA-256.
 */
@Timeout(120)
class NamesWhereDnsIsSilentTest {
    private static final Logger log = LoggerFactory.getLogger(NamesWhereDnsIsSilentTest.class);
    private static final String TOKEN = "testbed-dns-token";
    private static final int HUB_PORT = 17000;
    private static final int PLAIN_SERVICE_PORT = 7007;
    private static final long BYTES = 64 << 10;
    /** Far below the 5 s one silent DNS try costs, far above a cold JVM's jitter on 2 cores. */
    private static final long MARGIN_MILLIS = 1_500;

    @RegisterExtension
    final FreshTestbed testbed = new FreshTestbed();

    private String hub;
    private RunningNode server;
    private SiteResolver silentDns;
    private Host silentHost;
    private Host answeringHost;

    @BeforeEach
    void network() throws Exception {
        Host hubHost = testbed.get().internet().host("hub");
        Host serverHost = testbed.get().internet().host("server");
        Site silent = testbed.get().site("site-s", "10.0.5.0/24");
        Site answering = testbed.get().site("site-a", "10.0.6.0/24");
        silent.router().firewall(Firewall.dropInbound());
        answering.router().firewall(Firewall.dropInbound());
        silentHost = silent.host("s", "10.0.5.2");
        answeringHost = answering.host("a", "10.0.6.2");
        silentDns = SiteResolver.silent(silent);
        silentDns.serve(silentHost);
        SiteResolver.answering(answering, Map.of("web.example.test", serverHost.address()))
                .serve(answeringHost);
        hub = HubAgent.startOn(hubHost, HUB_PORT, TOKEN);
        server = RunningNode.start(
                serverHost,
                NodeSettings.linkedTo(hub, TOKEN)
                        .bind(serverHost.address())
                        .serviceName("db-server")
                        .plainPorts(PLAIN_SERVICE_PORT, PLAIN_SERVICE_PORT + 1));
    }

    private NodeSettings client(Host host) {
        return NodeSettings.linkedTo(hub, TOKEN).bind(host.address());
    }

    @Test
    void aRegisteredNameFromASiteWhoseDnsDropsQueriesCostsNoResolverTimeout() {
        TransferResult answered = RunningNode.coldConnectByName(
                answeringHost, client(answeringHost), "db-server:7", BYTES, Duration.ofSeconds(20), agentLog -> {});
        log.info("Cold, by name, where DNS answers: {}", answered);
        assertThat(answered.ok()).as(answered.toString()).isTrue();
        assertThat(answered.servedBy()).isEqualTo(server.nodeId());

        StringBuilder silentLog = new StringBuilder();
        TransferResult silent = RunningNode.coldConnectByName(
                silentHost, client(silentHost), "db-server:7", BYTES, Duration.ofSeconds(20), silentLog::append);
        log.info("Cold, by name, where DNS drops queries: {}", silent);
        assertThat(silent.ok()).as(() -> silent + "\n" + silentLog).isTrue();
        assertThat(silent.servedBy()).isEqualTo(server.nodeId());
        assertThat(silentDns.dropped())
                .as("the node asked DNS, and the queries were dropped")
                .isPositive();
        assertThat(silent.elapsedMillis())
                .as(() -> "where DNS answers it took " + answered.elapsedMillis() + " ms\n" + silentLog)
                .isLessThanOrEqualTo(answered.elapsedMillis() + MARGIN_MILLIS);
    }

    @Test
    void aNameOnlyDnsKnowsIsUsedAsSoonAsTheHubNetworkSaysItHoldsNoSuchName() {
        TransferResult cold = RunningNode.coldConnectByName(
                answeringHost,
                client(answeringHost),
                "web.example.test:" + PLAIN_SERVICE_PORT,
                BYTES,
                Duration.ofSeconds(20),
                agentLog -> {});
        log.info("Cold, by a name only DNS knows: {}", cold);
        assertThat(cold.ok()).as(cold.toString()).isTrue();
        assertThat(cold.servedBy()).as("the server's plain port").isEqualTo(server.nodeId());

        try (RunningNode settled = RunningNode.start(answeringHost, client(answeringHost))) {
            TransferResult linked =
                    settled.connectByName("web.example.test:" + PLAIN_SERVICE_PORT, BYTES, Duration.ofSeconds(20));
            log.info("Settled, by a name only DNS knows: {}", linked);
            assertThat(linked.ok())
                    .as(() -> linked + "\n" + settled.recentLog())
                    .isTrue();
            assertThat(linked.servedBy()).isEqualTo(server.nodeId());
            assertThat(linked.elapsedMillis())
                    .as("no wait beyond the hub's answer")
                    .isLessThan(MARGIN_MILLIS);
        }
    }

    @Test
    void aNameNeitherKnowsFromTheSilentSiteTimesOutSayingWhatWasAwaited() {
        try (RunningNode settled = RunningNode.start(silentHost, client(silentHost))) {
            TransferResult unknown = settled.connectByName("nowhere.example.test:80", BYTES, Duration.ofSeconds(3));
            log.info("Settled, by a name nobody knows, where DNS drops queries: {}", unknown);
            assertThat(unknown.ok()).isFalse();
            assertThat(unknown.error())
                    .contains("SocketTimeoutException")
                    .contains("the hub network does not hold it, and DNS has not answered");
            assertThat(unknown.elapsedMillis())
                    .as("the connect's deadline ends the wait")
                    .isBetween(2_500L, 4_500L);
        }
        TransferResult inDns = RunningNode.coldConnectByName(
                answeringHost,
                client(answeringHost),
                "nowhere.example.test:80",
                BYTES,
                Duration.ofSeconds(20),
                agentLog -> {});
        log.info("Cold, by a name nobody knows, where DNS answers: {}", inDns);
        assertThat(inDns.ok()).isFalse();
        assertThat(inDns.error())
                .contains("UnknownHostException")
                .contains("no live node holds this name at the hub network");
    }
}
