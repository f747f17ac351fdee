package io.traverse.testbed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A site whose only way out is a real HTTP proxy: tinyproxy in the site router's
 * namespace, everything else the site sends out dropped, inbound dropped. Its node links to a hub
 * on the internet through a CONNECT tunnel, accepts from and connects to a node at another site
 * (16 MiB each way, length and SHA-256 checked after a half-close); with a proxy that allows
 * CONNECT only to port 443 ({@link SiteHttpProxy#refusingConnect}) the node links by a long-poll
 * session through the same proxy and does the same, or, told to use CONNECT only, fails saying
 * which proxy refused and what it answered.
 */
@Timeout(90)
class ProxyOnlySiteTest {
    private static final Logger log = LoggerFactory.getLogger(ProxyOnlySiteTest.class);
    private static final String TOKEN = "testbed-proxy-token";
    private static final int HUB_PORT = 17000;
    private static final long SIXTEEN_MIB = 16L << 20;

    @RegisterExtension
    final FreshTestbed testbed = new FreshTestbed();

    private static NodeSettings linked(String hub) {
        return NodeSettings.linkedTo(hub, TOKEN).set("traverse.modules", "direct,reverse,routed");
    }

    /** True if a plain TCP connect from {@code host} to {@code hostPort} succeeds within 2 s. */
    private static boolean plainConnectWorks(Host host, String ip, int port) {
        return host.namespace()
                .execAllowingFailure(
                        Duration.ofSeconds(5),
                        null,
                        List.of("timeout", "2", "bash", "-c", "exec 3<>/dev/tcp/" + ip + "/" + port))
                .succeeded();
    }

    @Test
    void aNodeBehindAConnectProxyLinksAcceptsAndConnects() throws Exception {
        Host hubHost = testbed.get().internet().host("hub");
        Site proxied = testbed.get().site("site-p", "10.0.3.0/24");
        Site other = testbed.get().site("site-o", "10.0.4.0/24");
        proxied.router().firewall(Firewall.dropInbound());
        other.router().firewall(Firewall.dropInbound());
        SiteHttpProxy proxy = SiteHttpProxy.start(proxied);
        Host pHost = proxied.host("p", "10.0.3.2");
        Host oHost = other.host("o", "10.0.4.2");
        String hub = HubAgent.startOn(hubHost, HUB_PORT, TOKEN);
        assertThat(plainConnectWorks(pHost, hubHost.address().getHostAddress(), HUB_PORT))
                .as("the proxy-only site cannot reach the hub without its proxy")
                .isFalse();
        assertThat(plainConnectWorks(oHost, hubHost.address().getHostAddress(), HUB_PORT))
                .as("the other site can")
                .isTrue();

        CompletableFuture<RunningNode> behindProxy = CompletableFuture.supplyAsync(() -> RunningNode.start(
                pHost, linked(hub).bind(pHost.address()).set("traverse.http.proxy", proxy.authority())));
        CompletableFuture<RunningNode> outside = CompletableFuture.supplyAsync(() -> RunningNode.start(
                oHost, linked(hub).bind(oHost.address()).external(other.router().publicAddress(), 17779)));
        RunningNode p = behindProxy.join();
        RunningNode o = outside.join();
        assertThat(proxy.connectRequests())
                .as("the hub link and its data link asked the proxy:\n%s", proxy.log())
                .isGreaterThanOrEqualTo(2);

        TransferResult out = p.connect(o.address(), SIXTEEN_MIB, Duration.ofSeconds(10));
        log.info("From the proxy-only site out: {}", out);
        assertThat(out.ok())
                .as(() -> out + "\nP's log:\n" + p.recentLog() + "\nO's log:\n" + o.recentLog())
                .isTrue();
        assertThat(out.module()).isEqualTo("routed");
        assertThat(out.bytes()).isEqualTo(SIXTEEN_MIB);
        assertThat(out.servedBy()).isEqualTo(o.nodeId());

        TransferResult in = o.connect(p.address(), SIXTEEN_MIB, Duration.ofSeconds(10));
        log.info("Into the proxy-only site: {}", in);
        assertThat(in.ok())
                .as(() -> in + "\nP's log:\n" + p.recentLog() + "\nO's log:\n" + o.recentLog())
                .isTrue();
        assertThat(in.module()).isEqualTo("routed");
        assertThat(in.bytes()).isEqualTo(SIXTEEN_MIB);
        assertThat(in.servedBy()).isEqualTo(p.nodeId());
        assertThat(in.setupMillis())
                .as("direct to the dropping site would wait for its timeout")
                .isLessThan(5_000);
        assertThat(p.servedConnections()).isEqualTo(1);

        // Its way out is the proxy alone: a connect that cannot succeed fails fast, saying why direct was not tried.
        o.close();
        TransferResult gone = p.connect(o.address(), 1024, Duration.ofSeconds(30));
        log.info("From the proxy-only site to a node that is gone: {}", gone);
        assertThat(gone.ok()).isFalse();
        assertThat(gone.elapsedMillis()).as(gone.error()).isLessThan(5_000);
        assertThat(gone.error())
                .contains("direct: not tried")
                .contains("cannot be reached directly")
                .contains("HTTP proxy " + proxy.authority());
    }

    @Test
    void aNodeBehindAProxyThatRefusesConnectLinksByLongPollAcceptsAndConnects() throws Exception {
        Host hubHost = testbed.get().internet().host("hub");
        Site proxied = testbed.get().site("site-p", "10.0.3.0/24");
        Site other = testbed.get().site("site-o", "10.0.4.0/24");
        proxied.router().firewall(Firewall.dropInbound());
        other.router().firewall(Firewall.dropInbound());
        SiteHttpProxy proxy = SiteHttpProxy.refusingConnect(proxied);
        Host pHost = proxied.host("p", "10.0.3.2");
        Host oHost = other.host("o", "10.0.4.2");
        String hub = HubAgent.startOn(hubHost, HUB_PORT, TOKEN);

        // The default chain and tunnel setting, as a user has them: CONNECT is tried, refused, and a long-poll session
        // follows.
        CompletableFuture<RunningNode> behindProxy = CompletableFuture.supplyAsync(() -> RunningNode.start(
                pHost,
                NodeSettings.linkedTo(hub, TOKEN).bind(pHost.address()).set("traverse.http.proxy", proxy.authority())));
        CompletableFuture<RunningNode> outside = CompletableFuture.supplyAsync(() -> RunningNode.start(
                oHost, linked(hub).bind(oHost.address()).external(other.router().publicAddress(), 17779)));
        RunningNode p = behindProxy.join();
        RunningNode o = outside.join();
        assertThat(proxy.connectRequests())
                .as("CONNECT was asked first:\n%s", proxy.log())
                .isGreaterThanOrEqualTo(1);
        assertThat(proxy.log())
                .as("then the session's requests went through the proxy")
                .contains("POST");

        TransferResult out = p.connect(o.address(), SIXTEEN_MIB, Duration.ofSeconds(20));
        log.info("From the long-poll site out: {}", out);
        assertThat(out.ok())
                .as(() -> out + "\nP's log:\n" + p.recentLog() + "\nO's log:\n" + o.recentLog())
                .isTrue();
        assertThat(out.module()).isEqualTo("longpoll");
        assertThat(out.bytes()).isEqualTo(SIXTEEN_MIB);
        assertThat(out.servedBy()).isEqualTo(o.nodeId());

        TransferResult in = o.connect(p.address(), SIXTEEN_MIB, Duration.ofSeconds(20));
        log.info("Into the long-poll site: {}", in);
        assertThat(in.ok())
                .as(() -> in + "\nP's log:\n" + p.recentLog() + "\nO's log:\n" + o.recentLog())
                .isTrue();
        assertThat(in.module()).isEqualTo("routed");
        assertThat(in.bytes()).isEqualTo(SIXTEEN_MIB);
        assertThat(in.servedBy()).isEqualTo(p.nodeId());
        assertThat(p.servedConnections()).isEqualTo(1);

        // The proxy dies and comes back mid-transfer: every HTTP connection of the session is cut, and the session
        // resumes
        // from the last acknowledged offsets with nothing lost or duplicated (length and SHA-256 at the far end).
        CompletableFuture<TransferResult> during =
                CompletableFuture.supplyAsync(() -> p.connect(o.address(), 4 * SIXTEEN_MIB, Duration.ofSeconds(30)));
        Thread.sleep(400);
        assertThat(during).as("the transfer runs when the proxy dies").isNotDone();
        proxy.restart();
        TransferResult resumed = during.get(60, java.util.concurrent.TimeUnit.SECONDS);
        log.info("Across a proxy restart: {}", resumed);
        assertThat(resumed.ok())
                .as(() -> resumed + "\nP's log:\n" + p.recentLog() + "\nO's log:\n" + o.recentLog())
                .isTrue();
        assertThat(resumed.bytes()).isEqualTo(4 * SIXTEEN_MIB);
        assertThat(resumed.module()).isEqualTo("longpoll");
    }

    @Test
    void aProxyThatRefusesConnectIsNamedWithItsStatusLine() throws Exception {
        Host hubHost = testbed.get().internet().host("hub");
        Site proxied = testbed.get().site("site-p", "10.0.3.0/24");
        proxied.router().firewall(Firewall.dropInbound());
        SiteHttpProxy proxy = SiteHttpProxy.refusingConnect(proxied);
        Host pHost = proxied.host("p", "10.0.3.2");
        String hub = HubAgent.startOn(hubHost, HUB_PORT, TOKEN);

        // Told to use CONNECT only, every hub link attempt fails on the proxy's answer (the first within a second of
        // the start)
        // and is retried until traverse.hub.timeout; the node then fails to start, the refusal as its reason.
        assertThatThrownBy(() -> RunningNode.start(
                        pHost,
                        linked(hub)
                                .bind(pHost.address())
                                .set("traverse.http.proxy", proxy.authority())
                                .set("traverse.hub.timeout", "3s")
                                .set(
                                        "traverse.http.tunnel",
                                        "connect"))) // CONNECT only: by default a refusal falls back on a long-poll
                // session
                .isInstanceOf(TestbedException.class)
                .hasMessageContaining("did not start: no hub link within 9000 ms")
                .hasMessageContaining(
                        "(last failure: HTTP proxy " + proxy.authority() + " (system property traverse.http.proxy)"
                                + " refused CONNECT to hub " + hub + ": it answered 'HTTP/1.1 403 Access violation')")
                .satisfies(e -> log.info("A node behind a proxy that refuses CONNECT: {}", e.getMessage()));
        assertThat(proxy.connectRequests()).isGreaterThanOrEqualTo(1);
    }
}
