package io.traverse.hub;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.traverse.identity.NodeId;
import io.traverse.wire.Gossip;
import io.traverse.wire.HubDescription;
import io.traverse.wire.LinkMessageCodec;
import io.traverse.wire.Reject;
import io.traverse.wire.RejectCode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Gossip convergence and shortest routes over real loopback links between in-process hubs. */
class HubGossipTest {
    private static final Duration CONVERGE = Duration.ofSeconds(10);

    private final TestHubs hubs = new TestHubs();

    @TempDir
    Path dir;

    @AfterEach
    void closeHubs() {
        hubs.close();
    }

    @Test
    void aGossipWithAMalformedRoundTripListClosesOnlyThatLink() throws Exception {
        Hub a = hubs.dialOnly("rtt-a");
        Hub b = hubs.dialOnly("rtt-b", a);
        await().atMost(CONVERGE)
                .until(() -> a.status().hubLinks().size() == 1
                        && a.status().knownHubs().containsKey(b.id()));
        NodeId raw = TestKeys.id("raw-rtt");
        byte[] timed = LinkMessageCodec.encodeToBytes(new Gossip(new HubDescription(
                raw, 1, "raw-rtt", List.of(), List.of(a.id(), b.id()), List.of(), List.of(), List.of(100L, 200L))));
        // The same description with one round-trip time for its two neighbours: the count (u16) and the last time
        // rewritten.
        byte[] oneTime = Arrays.copyOf(timed, timed.length - 4);
        oneTime[oneTime.length - 6] = 0;
        oneTime[oneTime.length - 5] = 1;
        try (RawHubLink link = RawHubLink.connect(a, "raw-rtt")) {
            link.sendFrame(oneTime);
            Reject reject = link.awaitClose();
            assertThat(reject).as("a REJECT before the close").isNotNull();
            assertThat(reject.code()).isEqualTo(RejectCode.PROTOCOL);
            assertThat(reject.reason()).isEqualTo("1 neighbour round-trip times for 2 neighbours");
        }
        // The closed link leaves the hub's state a moment after its socket closes.
        await().atMost(CONVERGE)
                .untilAsserted(() -> assertThat(a.status().hubLinks())
                        .as("the other hub's link stays")
                        .extracting(HubStatus.HubLinkStatus::peerId)
                        .containsExactly(b.id()));
        assertThat(a.status().knownHubs()).containsOnlyKeys(b.id());
    }

    @Test
    void lineConvergesWithHopCountsAndNextHops() throws Exception {
        // Nobody advertises: the links are exactly the configured ones, a - b - c - d.
        Hub a = hubs.dialOnly("line-a");
        Hub b = hubs.dialOnly("line-b", a);
        Hub c = hubs.dialOnly("line-c", b);
        Hub d = hubs.dialOnly("line-d", c);
        await().atMost(CONVERGE).untilAsserted(() -> {
            assertRoute(a, d, b, 3);
            assertRoute(a, c, b, 2);
            assertRoute(a, b, b, 1);
            assertRoute(d, a, c, 3);
            assertRoute(c, a, b, 2);
            assertRoute(b, d, c, 2);
        });
        assertThat(a.status().hubLinks())
                .extracting(HubStatus.HubLinkStatus::peerId)
                .containsExactly(b.id());
    }

    @Test
    void starRoutesEverythingThroughTheCentre() throws Exception {
        Hub centre = hubs.dialOnly("star-centre");
        Hub[] leaves = new Hub[4];
        for (int i = 0; i < leaves.length; i++) {
            leaves[i] = hubs.dialOnly("star-leaf-" + i, centre);
        }
        await().atMost(CONVERGE).untilAsserted(() -> {
            for (Hub leaf : leaves) {
                assertRoute(centre, leaf, leaf, 1);
                for (Hub other : leaves) {
                    if (other != leaf) {
                        assertRoute(leaf, other, centre, 2);
                    }
                }
            }
        });
    }

    @Test
    void treeRoutesFollowTheBranches() throws Exception {
        //        root
        //       /    \
        //      l      r
        //     / \      \
        //   ll   lr     rr
        Hub root = hubs.dialOnly("tree-root");
        Hub l = hubs.dialOnly("tree-l", root);
        Hub r = hubs.dialOnly("tree-r", root);
        Hub ll = hubs.dialOnly("tree-ll", l);
        Hub lr = hubs.dialOnly("tree-lr", l);
        Hub rr = hubs.dialOnly("tree-rr", r);
        await().atMost(CONVERGE).untilAsserted(() -> {
            assertRoute(ll, rr, l, 4);
            assertRoute(ll, lr, l, 2);
            assertRoute(rr, lr, r, 4);
            assertRoute(root, ll, l, 2);
            assertRoute(root, rr, r, 2);
            assertRoute(lr, root, l, 2);
        });
    }

    @Test
    void hubsThatAdvertiseGetDialledByEveryoneWhoLearnsOfThem() throws Exception {
        // Only a line is configured, but every hub advertises: gossip spreads the addresses and a full mesh forms.
        Hub a = hubs.advertised("mesh-a");
        Hub b = hubs.advertised("mesh-b", a);
        Hub c = hubs.advertised("mesh-c", b);
        Hub d = hubs.advertised("mesh-d", c);
        Hub[] all = {a, b, c, d};
        await().atMost(CONVERGE).untilAsserted(() -> {
            for (Hub from : all) {
                for (Hub to : all) {
                    if (from != to) {
                        assertRoute(from, to, to, 1);
                    }
                }
            }
        });
        // Both ends dialled each other for some pairs: exactly one link per pair survives.
        await().atMost(CONVERGE).untilAsserted(() -> {
            for (Hub hub : all) {
                assertThat(hub.status().hubLinks()).hasSize(3);
            }
        });
    }

    @Test
    void aHubThatCanOnlyDialOutStillJoins() throws Exception {
        Hub a = hubs.advertised("open-a");
        Hub b = hubs.advertised("open-b", a);
        // Nobody can dial x: it advertises nothing, and no one is told its port.
        Hub x = hubs.dialOnly("outbound-only-x", a);
        await().atMost(CONVERGE).untilAsserted(() -> {
            // x learned b's address from a's gossip and dialled it.
            assertRoute(x, b, b, 1);
            assertRoute(b, x, x, 1);
            assertRoute(a, x, x, 1);
            assertThat(b.status().knownHubs().get(x.id()).linkAddresses()).isEmpty();
        });
        assertThat(x.status().hubLinks())
                .allSatisfy(link -> assertThat(link.dialledByUs()).isTrue());
    }

    @Test
    void routesAreWithdrawnWhenAHubStopsAndComeBackWhenItRestartsWithItsKey() throws Exception {
        Hub a = hubs.dialOnly("restart-a");
        Hub b = hubs.dialOnly("restart-b", a);
        // Its id is its key's: kept in a file, the restarted hub is the same hub.
        Path key = dir.resolve("restart-c.key");
        Hub c = hubs.start("restart-c", x -> x.keyFile(key).advertisedAddresses(List.of()), b);
        await().atMost(CONVERGE).untilAsserted(() -> assertRoute(a, c, b, 2));
        NodeId cId = c.id();
        long firstState = a.status().knownHubs().get(cId).stateNumber();

        c.close();
        await().atMost(Duration.ofSeconds(3)).untilAsserted(() -> {
            assertThat(a.status().routes()).doesNotContainKey(cId);
            assertThat(b.status().routes()).doesNotContainKey(cId);
        });
        // Unreachable hubs expire after the expiry time.
        await().atMost(CONVERGE)
                .untilAsserted(() -> assertThat(a.status().knownHubs()).doesNotContainKey(cId));

        Hub again = hubs.start("restart-c", x -> x.keyFile(key).advertisedAddresses(List.of()), b);
        assertThat(again.id()).isEqualTo(cId);
        await().atMost(CONVERGE).untilAsserted(() -> {
            assertRoute(a, again, b, 2);
            assertThat(a.status().knownHubs().get(cId).stateNumber()).isGreaterThan(firstState);
        });
    }

    @Test
    void aBrokenMiddleLinkSplitsTheNetworkAtOnce() throws Exception {
        Hub a = hubs.dialOnly("split-a");
        Hub b = hubs.dialOnly("split-b", a);
        Hub c = hubs.dialOnly("split-c", b);
        Hub d = hubs.dialOnly("split-d", c);
        await().atMost(CONVERGE).untilAsserted(() -> assertRoute(a, d, b, 3));
        b.close();
        // a and c notice at once (the link closes); d learns it from c's gossip.
        await().atMost(Duration.ofSeconds(3)).untilAsserted(() -> {
            assertThat(a.status().routes()).isEmpty();
            assertThat(d.status().routes()).containsOnlyKeys(c.id());
        });
    }

    @Test
    void twoHubsDiallingEachOtherKeepExactlyTheLinkDialledByTheSmallerId() throws Exception {
        int portOfA;
        try (java.net.ServerSocket probe =
                new java.net.ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            portOfA = probe.getLocalPort();
        }
        Hub b = hubs.start(
                "both-ways-b",
                builder -> builder.advertisedAddresses(java.util.List.of()).peer("127.0.0.1:" + portOfA));
        Hub a = hubs.start("both-ways-a", portOfA, builder -> builder.advertisedAddresses(java.util.List.of()), b);
        NodeId smaller = a.id().compareTo(b.id()) < 0 ? a.id() : b.id();
        await().atMost(CONVERGE).untilAsserted(() -> {
            for (Hub hub : new Hub[] {a, b}) {
                assertThat(hub.status().hubLinks())
                        .singleElement()
                        .satisfies(link -> assertThat(link.dialledByUs())
                                .isEqualTo(hub.id().equals(smaller)));
            }
        });
        // And it stays that way: no flapping between the two links.
        await().during(Duration.ofMillis(600))
                .atMost(Duration.ofSeconds(3))
                .until(() -> a.status().hubLinks().size() == 1
                        && b.status().hubLinks().size() == 1
                        && a.status().routes().containsKey(b.id()));
    }

    private static void assertRoute(Hub from, Hub to, Hub nextHop, int hops) {
        Map<NodeId, HubStatus.RouteStatus> routes = from.status().routes();
        assertThat(routes)
                .as("%s -> %s", from.name(), to.name())
                .containsEntry(to.id(), new HubStatus.RouteStatus(nextHop.id(), hops));
    }

    @Test
    void aNewLinkCatchesUpAtOnceWithoutWaitingForARefresh() throws Exception {
        // Gossip refresh at its default of 10 s: what a new link does not bring, nobody would send for 10 s.
        java.util.function.Consumer<HubConfig.Builder> slowRefresh =
                b -> b.gossipRefreshInterval(Duration.ofSeconds(10)).hubExpiry(Duration.ofSeconds(30));
        int acceptorPort;
        try (java.net.ServerSocket free = new java.net.ServerSocket(0)) {
            acceptorPort = free.getLocalPort();
        }
        // d dials the acceptor's port from the start (refused until it runs), and learns of a dial-out-only hub first.
        Hub d = hubs.start("catch-up-d", b -> {
            slowRefresh.accept(b);
            b.peer("127.0.0.1:" + acceptorPort);
        });
        Hub x = hubs.start(
                "catch-up-x",
                b -> {
                    slowRefresh.accept(b);
                    b.advertisedAddresses(java.util.List.of());
                },
                d);
        await().atMost(Duration.ofSeconds(5)).until(() -> d.status().routes().containsKey(x.id()));
        Hub a = hubs.start("catch-up-a", acceptorPort, slowRefresh);
        await().atMost(Duration.ofSeconds(5))
                .until(() ->
                        a.status().hubLinks().stream().anyMatch(l -> l.peerId().equals(d.id())));
        // x is known to a through the digest exchange of the new link, long before x's next refresh
        await().atMost(Duration.ofSeconds(3))
                .untilAsserted(() -> assertThat(a.status().routes()).containsKey(x.id()));
    }

    @Test
    void gossipBytesCountEveryDescriptionFrameWholeNewsOrNot() throws Exception {
        Hub a = hubs.dialOnly("bytes-a");
        NodeId raw = TestKeys.id("raw-bytes");
        byte[] frame = LinkMessageCodec.encodeToBytes(new Gossip(
                new HubDescription(raw, 1, "raw-bytes", List.of(), List.of(a.id()), List.of(), List.of(), List.of())));
        long before = a.metrics().gossipBytesReceived();
        try (RawHubLink link = RawHubLink.connect(a, "raw-bytes")) {
            link.sendFrame(frame);
            long once = before + 4 + frame.length; // the u32 length prefix and the frame
            await().atMost(CONVERGE).until(() -> a.metrics().gossipBytesReceived() == once);
            // The same state again is no news (dropped undecoded) but crossed the link all the same.
            link.sendFrame(frame);
            await().atMost(CONVERGE).until(() -> a.metrics().gossipBytesReceived() == once + 4 + frame.length);
        }
        assertThat(a.metrics().scrape()).contains("traverse_hub_gossip_bytes_total");
    }
}
