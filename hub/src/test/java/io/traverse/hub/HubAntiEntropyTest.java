package io.traverse.hub;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.traverse.identity.NodeId;
import io.traverse.wire.Gossip;
import io.traverse.wire.GossipSummary;
import io.traverse.wire.HubDescription;
import io.traverse.wire.LinkMessage;
import io.traverse.wire.LinkMessageCodec;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Gossip refresh as anti-entropy: in steady state hubs exchange summaries, not
 * descriptions; a description a hub missed comes with the next round; a dead hub is withdrawn
 * everywhere and stays forgotten. Real hubs on loopback, gossip refresh 300 ms and expiry 1.5 s
 * ({@link TestHubs#fast}).
 */
class HubAntiEntropyTest {
    private static final Duration CONVERGE = Duration.ofSeconds(10);
    private static final long REFRESH_MILLIS = 300;
    /** Type byte, u32 count, u64 hash, and the u32 length prefix. */
    private static final int SUMMARY_FRAME_BYTES = 4 + 1 + 4 + 8;

    private final TestHubs hubs = new TestHubs();

    @AfterEach
    void closeHubs() {
        hubs.close();
    }

    @Test
    void inSteadyStateNoDescriptionIsSentAgainOnlySummaries() throws Exception {
        Hub a = hubs.dialOnly("steady-a");
        Hub b = hubs.dialOnly("steady-b", a);
        Hub c = hubs.dialOnly("steady-c", b);
        Hub[] all = {a, b, c};
        await().atMost(CONVERGE)
                .until(() -> c.status().routes().containsKey(a.id())
                        && a.status().routes().containsKey(c.id()));
        try (RawHubLink watcher = RawHubLink.connect(a, "steady-watcher").answerPings()) {
            // Let the new link's publications pass.
            Thread.sleep(6 * REFRESH_MILLIS);
            Map<Hub, Long> states = new HashMap<>();
            Map<Hub, Long> descriptions = new HashMap<>();
            Map<Hub, Long> bytes = new HashMap<>();
            for (Hub hub : all) {
                states.put(hub, hub.status().stateNumber());
                descriptions.put(hub, received(hub));
                bytes.put(hub, hub.metrics().gossipBytesReceived());
            }
            int seenBefore = watcher.received().size();
            Thread.sleep(8 * REFRESH_MILLIS);
            List<LinkMessage> window =
                    watcher.received().subList(seenBefore, watcher.received().size());
            assertThat(window).as("what hub a sent the watcher").noneMatch(m -> m instanceof Gossip);
            assertThat(window.stream().filter(m -> m instanceof GossipSummary).count())
                    .as("summaries in 8 refresh intervals")
                    .isBetween(5L, 10L);
            // a holds itself, b and c (the watcher publishes no description: not reachable, not counted).
            assertThat(window)
                    .filteredOn(m -> m instanceof GossipSummary)
                    .allSatisfy(
                            m -> assertThat(((GossipSummary) m).descriptions()).isEqualTo(3));
            for (Hub hub : all) {
                assertThat(hub.status().stateNumber())
                        .as("%s publishes nothing to say it is alive", hub.name())
                        .isEqualTo(states.get(hub));
                assertThat(received(hub))
                        .as("descriptions %s received", hub.name())
                        .isEqualTo(descriptions.get(hub));
                long grown = hub.metrics().gossipBytesReceived() - bytes.get(hub);
                assertThat(grown)
                        .as("gossip bytes at %s: summaries only", hub.name())
                        .isPositive();
                assertThat(grown % SUMMARY_FRAME_BYTES).isZero();
                assertThat(hub.metrics().digestsForSummaries())
                        .as("no summary differed for long")
                        .isZero();
            }
        }
    }

    @Test
    void aDescriptionMissedDuringAChangeComesWithTheNextAntiEntropyRound() throws Exception {
        Hub a = hubs.dialOnly("missed-a");
        Hub b = hubs.dialOnly("missed-b", a);
        NodeId origin = TestKeys.id("missed-origin");
        try (RawHubLink toA = RawHubLink.connect(a, "missed-origin").answerPings();
                RawHubLink toB = RawHubLink.connect(b, "missed-origin").answerPings()) {
            List<NodeId> neighbours = a.id().compareTo(b.id()) < 0 ? List.of(a.id(), b.id()) : List.of(b.id(), a.id());
            Gossip first = new Gossip(
                    new HubDescription(origin, 1, "missed-origin", List.of(), neighbours, List.of(), List.of()));
            toA.send(first);
            toB.send(first);
            await().atMost(CONVERGE)
                    .until(() -> a.status().routes().containsKey(origin)
                            && b.status().routes().containsKey(origin)
                            && a.status().routes().containsKey(b.id()));
            // The origin's next state reaches a only (its copy to b was lost). a does not flood it to b: b is the
            // origin's neighbour and hears from it directly, so the flood alone would leave b behind for good.
            toA.send(new Gossip(new HubDescription(
                    origin, 2, "missed-origin-renamed", List.of(), neighbours, List.of(), List.of())));
            await().atMost(CONVERGE)
                    .until(() -> a.status().knownHubs().get(origin).stateNumber() == 2);
            Thread.sleep(REFRESH_MILLIS / 2);
            assertThat(b.status().knownHubs().get(origin).stateNumber())
                    .as("not flooded to b")
                    .isEqualTo(1);
            // The summaries differ; once both have held still for an interval, b sends a its digest and a answers with
            // state 2.
            await().atMost(Duration.ofSeconds(4))
                    .until(() -> b.status().knownHubs().get(origin).stateNumber() == 2);
            assertThat(b.metrics().digestsForSummaries()).isPositive();
            // And then the summaries agree again: no further digests.
            Thread.sleep(2000);
            long settled = a.metrics().digestsForSummaries() + b.metrics().digestsForSummaries();
            Thread.sleep(6 * REFRESH_MILLIS);
            assertThat(a.metrics().digestsForSummaries() + b.metrics().digestsForSummaries())
                    .isEqualTo(settled);
        }
    }

    @Test
    void aDeadHubIsWithdrawnEverywhereAndAntiEntropyDoesNotBringItBack() throws Exception {
        Hub a = hubs.dialOnly("dead-a");
        Hub b = hubs.dialOnly("dead-b", a);
        Hub c = hubs.dialOnly("dead-c", b);
        Hub d = hubs.dialOnly("dead-d", c);
        Hub e = hubs.dialOnly("dead-e", b);
        Hub[] live = {a, b, c, e};
        await().atMost(CONVERGE)
                .until(() -> a.status().routes().containsKey(d.id())
                        && e.status().routes().containsKey(d.id()));
        NodeId dead = d.id();
        d.close();
        await().atMost(Duration.ofSeconds(3)).untilAsserted(() -> {
            for (Hub hub : live) {
                assertThat(hub.status().routes()).as(hub.name()).doesNotContainKey(dead);
            }
        });
        // Forgotten after the expiry (1.5 s) everywhere...
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            for (Hub hub : live) {
                assertThat(hub.status().knownHubs()).as(hub.name()).doesNotContainKey(dead);
            }
        });
        // ...and for good: no summary or digest answer passes the dead hub's description around again.
        await().during(Duration.ofMillis(10 * REFRESH_MILLIS))
                .atMost(Duration.ofSeconds(5))
                .until(() -> {
                    for (Hub hub : live) {
                        if (hub.status().knownHubs().containsKey(dead)) {
                            return false;
                        }
                    }
                    return true;
                });
        for (Hub hub : live) {
            assertThat(hub.status().routes()).as(hub.name()).hasSize(live.length - 1);
        }
    }

    @Test
    void aMalformedSummaryClosesOnlyItsLink() throws Exception {
        Hub a = hubs.dialOnly("bad-summary-a");
        Hub b = hubs.dialOnly("bad-summary-b", a);
        await().atMost(CONVERGE).until(() -> a.status().routes().containsKey(b.id()));
        byte[] summary = LinkMessageCodec.encodeToBytes(new GossipSummary(2, 42));
        try (RawHubLink link = RawHubLink.connect(a, "bad-summary-raw")) {
            link.sendFrame(java.util.Arrays.copyOf(summary, summary.length - 2));
            io.traverse.wire.Reject reject = link.awaitClose();
            assertThat(reject).isNotNull();
            assertThat(reject.code()).isEqualTo(io.traverse.wire.RejectCode.PROTOCOL);
            assertThat(reject.reason()).isEqualTo("truncated summary hash: needs 8 bytes, 6 left");
        }
        await().atMost(CONVERGE)
                .untilAsserted(() -> assertThat(a.status().hubLinks())
                        .extracting(HubStatus.HubLinkStatus::peerId)
                        .containsExactly(b.id()));
    }

    private static long received(Hub hub) {
        return (long) hub.metrics()
                .registry()
                .get("traverse.hub.gossip.received")
                .counter()
                .count();
    }
}
