package io.traverse.hub;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.traverse.wire.RejectCode;
import io.traverse.wire.Relay;
import io.traverse.wire.RelayDirection;
import io.traverse.wire.RelayKind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Admission control at one hub, frame by frame with raw nodes: an OPEN beyond each limit is
 * answered with a RESET whose reason starts with OVERLOAD and names the limit's key, connections
 * already open go on, and what a node held is given back when its connections end or its link dies.
 * The link rate refuses a burst beyond it with a REJECT and admits again once the bucket refills.
 */
class RelayAdmissionTest {
    private static final int PORT = 7000;
    private final TestHubs hubs = new TestHubs();
    private final List<TestNodeClient> nodes = new ArrayList<>();
    private long nextId = 1;

    @AfterEach
    void closeAll() {
        nodes.forEach(TestNodeClient::close);
        hubs.close();
    }

    @Test
    void anOpenBeyondTheSetupsOfItsOpenerIsResetWithTheKeyUntilAnAnswerComes() throws Exception {
        Hub hub = hubs.start("admission-setups", b -> b.maxSetupsPerNode(2));
        TestNodeClient a = node(hub, "a");
        TestNodeClient b = node(hub, "b");
        Relay first = open(a, b);
        Relay second = open(a, b);
        assertThat(b.await(Relay.class).connectionId()).isEqualTo(first.connectionId());
        assertThat(b.await(Relay.class).connectionId()).isEqualTo(second.connectionId());
        assertRelayed(hub, 2, 2);

        Relay third = open(a, b);
        Relay reset = a.await(Relay.class);
        assertThat(reset.kind()).isEqualTo(RelayKind.RESET);
        assertThat(reset.connectionId()).isEqualTo(third.connectionId());
        assertThat(reset.reason())
                .startsWith("OVERLOAD: node " + a.id() + " has 2 relayed connection setups")
                .contains("at hub admission-setups")
                .endsWith("the most traverse.hub.max.setups.per.node allows");
        assertThat(overloads(hub, "setups-per-node")).isEqualTo(1);

        // An answer frees a setup: the next OPEN goes through.
        b.send(first.accept(64 * 1024));
        assertThat(a.await(Relay.class).kind()).isEqualTo(RelayKind.ACCEPT);
        Relay fourth = open(a, b);
        assertThat(b.await(Relay.class).connectionId()).isEqualTo(fourth.connectionId());
        assertRelayed(hub, 3, 2);
    }

    @Test
    void aNodeAtItsConnectionsIsRefusedAsOpenerAndAsAcceptorAndDataStillFlows() throws Exception {
        Hub hub = hubs.start("admission-per-node", b -> b.maxRelayedPerNode(2));
        TestNodeClient a = node(hub, "a");
        TestNodeClient b = node(hub, "b");
        TestNodeClient c = node(hub, "c");
        Relay one = accepted(a, b);
        Relay two = accepted(a, b);
        assertRelayed(hub, 2, 0);

        open(c, b);
        assertThat(c.await(Relay.class).reason())
                .as("b is full as acceptor")
                .startsWith("OVERLOAD: node " + b.id() + " has 2 relayed connections")
                .endsWith("the most traverse.hub.max.relayed.per.node allows");
        open(a, c);
        assertThat(a.await(Relay.class).reason())
                .as("a is full as opener")
                .startsWith("OVERLOAD: node " + a.id() + " has 2 relayed");
        assertThat(overloads(hub, "relayed-per-node")).isEqualTo(2);

        // The open connections are not touched: data still crosses both ways.
        a.send(Relay.data(one.connectionId(), a.id(), b.id(), RelayDirection.TOWARD_ACCEPTOR, 0, new byte[] {1, 2, 3}));
        Relay data = b.await(Relay.class);
        assertThat(data.kind()).isEqualTo(RelayKind.DATA);
        assertThat(data.payloadBytes()).endsWith(1, 2, 3);
        b.send(Relay.data(two.connectionId(), a.id(), b.id(), RelayDirection.TOWARD_OPENER, 0, new byte[] {4}));
        assertThat(a.await(Relay.class).payloadBytes()).endsWith(4);

        // Both FINs end one connection, a RESET the other: b can take new ones again.
        a.send(Relay.fin(one.connectionId(), a.id(), b.id(), RelayDirection.TOWARD_ACCEPTOR, 3));
        assertThat(b.await(Relay.class).kind()).isEqualTo(RelayKind.FIN);
        assertRelayed(hub, 2, 0);
        b.send(Relay.fin(one.connectionId(), a.id(), b.id(), RelayDirection.TOWARD_OPENER, 0));
        assertThat(a.await(Relay.class).kind()).isEqualTo(RelayKind.FIN);
        assertRelayed(hub, 1, 0);
        b.send(Relay.reset(two.connectionId(), a.id(), b.id(), RelayDirection.TOWARD_OPENER, "done"));
        assertThat(a.await(Relay.class).kind()).isEqualTo(RelayKind.RESET);
        assertRelayed(hub, 0, 0);
        Relay again = open(c, b);
        assertThat(b.await(Relay.class).connectionId()).isEqualTo(again.connectionId());
    }

    @Test
    void theHubWideLimitRefusesAnyPairOnceItHoldsItsMost() throws Exception {
        Hub hub = hubs.start("admission-total", b -> b.maxRelayed(2));
        TestNodeClient a = node(hub, "a");
        TestNodeClient b = node(hub, "b");
        TestNodeClient c = node(hub, "c");
        TestNodeClient d = node(hub, "d");
        accepted(a, b);
        Relay refused = open(c, d);
        assertThat(d.await(Relay.class).connectionId()).isEqualTo(refused.connectionId());
        open(c, d);
        assertThat(c.await(Relay.class).reason())
                .isEqualTo("OVERLOAD: 2 relayed connections are held at hub admission-total,"
                        + " the most traverse.hub.max.relayed allows");
        assertThat(overloads(hub, "relayed")).isEqualTo(1);
        // A REFUSE gives its place back.
        d.send(refused.refuse(3, "no"));
        assertThat(c.await(Relay.class).kind()).isEqualTo(RelayKind.REFUSE);
        assertRelayed(hub, 1, 0);
    }

    @Test
    void aNodeWhoseLinkIsCutGivesBackEveryConnectionAndItsPeersHearAtOnce() throws Exception {
        // A keepalive that a loaded machine's test threads keep up with while 200 connections are set up.
        Hub hub = hubs.start("admission-cut", b -> b.maxRelayedPerNode(1_000).keepaliveInterval(Duration.ofSeconds(1)));
        TestNodeClient a = node(hub, "a");
        TestNodeClient b = node(hub, "b");
        int connections = 200;
        for (int i = 0; i < connections; i++) {
            open(a, b);
        }
        for (int i = 0; i < connections; i++) {
            b.send(b.await(Relay.class).accept(64 * 1024));
        }
        for (int i = 0; i < connections; i++) {
            assertThat(a.await(Relay.class).kind()).isEqualTo(RelayKind.ACCEPT);
        }
        assertRelayed(hub, connections, 0);

        a.abort();
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertRelayed(hub, 0, 0));
        for (int i = 0; i < connections; i++) {
            Relay reset = b.await(Relay.class);
            assertThat(reset.kind()).isEqualTo(RelayKind.RESET);
            assertThat(reset.reason()).contains("node " + a.id() + " lost its link");
        }
    }

    @Test
    void acrossTwoHubsTheAcceptorsHubRefusesAndBothHubsGiveBackWhenAnEndDies() throws Exception {
        Hub near = hubs.dialOnly("admission-near");
        Hub far = hubs.start(
                "admission-far", b -> b.advertisedAddresses(java.util.List.of()).maxRelayedPerNode(2), near);
        TestNodeClient a = node(near, "a");
        TestNodeClient b = node(far, "b");
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(a.lookup(io.traverse.wire.LookupKind.NODE, b.id().toString())
                                .entries())
                        .first()
                        .isEqualTo(far.id().toString()));
        accepted(a, b);
        accepted(a, b);
        assertRelayed(near, 2, 0);
        assertRelayed(far, 2, 0);

        // b is full at its own hub: the RESET comes back across the near hub, which gives a's setup back.
        open(a, b);
        Relay reset = a.await(Relay.class);
        assertThat(reset.kind()).isEqualTo(RelayKind.RESET);
        assertThat(reset.reason())
                .startsWith("OVERLOAD: node " + b.id() + " has 2 relayed connections at hub admission-far");
        assertRelayed(near, 2, 0);
        assertThat(overloads(far, "relayed-per-node")).isEqualTo(1);

        // b dies: its hub forgets its connections and tells a, and a's hub forgets them on the way.
        b.abort();
        for (int i = 0; i < 2; i++) {
            assertThat(a.await(Relay.class).reason()).contains("node " + b.id() + " lost its link");
        }
        assertRelayed(far, 0, 0);
        assertRelayed(near, 0, 0);
    }

    @Test
    void aNodeBeyondTheHubsNodesIsRejectedWithTheKey() throws Exception {
        Hub hub = hubs.start("admission-nodes", b -> b.maxNodes(2));
        node(hub, "first");
        node(hub, "second");
        assertThatThrownBy(() -> node(hub, "third"))
                .isInstanceOfSatisfying(TestNodeClient.RejectedException.class, e -> {
                    assertThat(e.reject.code()).isEqualTo(RejectCode.LIMIT);
                    assertThat(e.reject.reason())
                            .isEqualTo("OVERLOAD: 2 nodes are linked at hub admission-nodes, the most"
                                    + " traverse.hub.max.nodes allows");
                });
        assertThat(overloads(hub, "nodes")).isEqualTo(1);
    }

    @Test
    void newLinksBeyondTheRateAreRejectedWithTheKeyAndAdmittedOnceTheBucketRefills() throws Exception {
        Hub hub = hubs.start("admission-rate", b -> b.linkRate(1).linkBurst(3));
        // Eight link handshakes at once: the burst takes three, the rest are refused right after the preamble.
        List<java.net.Socket> sockets = new ArrayList<>();
        try {
            for (int i = 0; i < 8; i++) {
                java.net.Socket s =
                        new java.net.Socket("127.0.0.1", hub.linkAddress().getPort());
                s.setSoTimeout(10_000);
                sockets.add(s);
                java.io.DataOutputStream out = new java.io.DataOutputStream(s.getOutputStream());
                out.write(TestNodeClient.preamble(io.traverse.wire.LinkRole.NODE));
                out.flush();
            }
            List<io.traverse.wire.Reject> rejects = new ArrayList<>();
            for (java.net.Socket s : sockets) {
                java.io.DataInputStream in = new java.io.DataInputStream(s.getInputStream());
                in.readFully(new byte[io.traverse.wire.LinkPreamble.LENGTH]);
                s.setSoTimeout(500);
                try {
                    if (TestNodeClient.readFrame(in) instanceof io.traverse.wire.Reject r) {
                        rejects.add(r);
                    }
                } catch (java.net.SocketTimeoutException admitted) {
                    // waits for our HELLO: it took a token
                }
            }
            assertThat(rejects)
                    .as("refused beyond the burst (a token may come back while they are sent)")
                    .hasSizeBetween(3, 5);
            assertThat(rejects).allSatisfy(r -> {
                assertThat(r.code()).isEqualTo(RejectCode.LIMIT);
                assertThat(r.reason())
                        .startsWith("OVERLOAD: new links come faster than 1 a second after a burst of 3")
                        .contains("at hub admission-rate")
                        .contains("the most traverse.hub.link.rate allows");
            });
            assertThat(overloads(hub, "link-rate")).isEqualTo(rejects.size());
        } finally {
            for (java.net.Socket s : sockets) {
                s.close();
            }
        }
        // A token a second: a node gets in again once one is back.
        await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(300))
                .ignoreExceptions()
                .until(() -> node(hub, "later") != null);
        assertThat(hub.status().nodes())
                .extracting(HubStatus.NodeStatus::nodeId)
                .contains(TestKeys.id("later"));
    }

    private TestNodeClient node(Hub hub, String name) throws Exception {
        TestNodeClient node = TestNodeClient.connect(hub, TestHubs.TOKEN, name);
        nodes.add(node);
        return node;
    }

    private Relay open(TestNodeClient from, TestNodeClient to) throws Exception {
        Relay open = Relay.open(nextId++, from.id(), to.id(), PORT, 64 * 1024);
        from.send(open);
        return open;
    }

    /** An OPEN from {@code from} that {@code to} accepts; returns the OPEN as {@code to} got it. */
    private Relay accepted(TestNodeClient from, TestNodeClient to) throws Exception {
        Relay open = open(from, to);
        Relay arrived = to.await(Relay.class);
        assertThat(arrived.connectionId()).isEqualTo(open.connectionId());
        to.send(arrived.accept(64 * 1024));
        assertThat(from.await(Relay.class).kind()).isEqualTo(RelayKind.ACCEPT);
        return arrived;
    }

    private static void assertRelayed(Hub hub, int held, int setups) {
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            assertThat(hub.metrics()
                            .registry()
                            .get("traverse.hub.relayed.connections")
                            .gauge()
                            .value())
                    .as("held")
                    .isEqualTo(held);
            assertThat(hub.metrics()
                            .registry()
                            .get("traverse.hub.relayed.setups")
                            .gauge()
                            .value())
                    .as("setups")
                    .isEqualTo(setups);
        });
    }

    private static double overloads(Hub hub, String limit) {
        return hub.metrics()
                .registry()
                .get("traverse.hub.overload.refusals")
                .tag("limit", limit)
                .counter()
                .count();
    }
}
