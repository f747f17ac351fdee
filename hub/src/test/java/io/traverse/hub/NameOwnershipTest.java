package io.traverse.hub;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.traverse.wire.LookupKind;
import io.traverse.wire.Result;
import io.traverse.wire.ResultStatus;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A name belongs to the key that bound it: another node is refused while its node is linked and
 * for the reservation time after its link goes, and the node itself gets it back when it links
 * again with its key, at the same hub or another.
 */
class NameOwnershipTest {
    private static final Duration GOSSIP = Duration.ofSeconds(10);
    private final TestHubs hubs = new TestHubs();

    @AfterEach
    void closeHubs() {
        hubs.close();
    }

    @Test
    void anotherKeyIsRefusedANameHeldByALiveNodeAndTheRefusalNamesBoth() throws Exception {
        Hub a = hubs.dialOnly("own-live-a");
        Hub c = hubs.dialOnly("own-live-c", a);
        try (TestNodeClient owner = TestNodeClient.connect(a, TestHubs.TOKEN, "ledger-owner");
                TestNodeClient nearby = TestNodeClient.connect(a, TestHubs.TOKEN, "ledger-rival");
                TestNodeClient far = TestNodeClient.connect(c, TestHubs.TOKEN, "ledger-far")) {
            assertThat(owner.bind("ledger", 5432).status()).isEqualTo(ResultStatus.OK);

            assertThat(nearby.bind("LEDGER", 1)).satisfies(r -> assertTakenFrom(r, owner, nearby));
            await().atMost(GOSSIP)
                    .untilAsserted(
                            () -> assertThat(far.bind("ledger", 1)).satisfies(r -> assertTakenFrom(r, owner, far)));
            assertThat(far.lookup(LookupKind.NAME, "ledger").entries()).containsExactly(owner.identityText() + ":5432");
        }
    }

    @Test
    void aNameIsKeptForItsNodeAfterItLeavesAndGivenBackWhenItRelinksWithItsKey() throws Exception {
        Hub a = hubs.dialOnly("own-back-a");
        TestNodeClient owner = TestNodeClient.connect(a, TestHubs.TOKEN, "journal-owner");
        assertThat(owner.bind("journal", 7000).status()).isEqualTo(ResultStatus.OK);
        owner.close();
        try (TestNodeClient rival = TestNodeClient.connect(a, TestHubs.TOKEN, "journal-rival")) {
            await().atMost(GOSSIP)
                    .untilAsserted(() -> assertThat(
                                    rival.lookup(LookupKind.NAME, "journal").status())
                            .as("a reserved name is nobody's address")
                            .isEqualTo(ResultStatus.NOT_FOUND));
            assertThat(rival.bind("journal", 1)).satisfies(r -> {
                assertTakenFrom(r, owner, rival);
                assertThat(r.message()).contains("reserved for node " + owner.id());
            });

            TestNodeClient back = relink(a, "journal-owner");
            try (back) {
                assertThat(back.id()).isEqualTo(owner.id());
                assertThat(back.bind("journal", 7000).status()).isEqualTo(ResultStatus.OK);
                assertThat(rival.lookup(LookupKind.NAME, "journal").entries())
                        .containsExactly(back.identityText() + ":7000");
                assertThat(rival.bind("journal", 1).status()).isEqualTo(ResultStatus.NAME_TAKEN);
            }
        }
    }

    @Test
    void aNodeGetsItsReservedNameBackAtAnotherHub() throws Exception {
        Hub a = hubs.dialOnly("own-move-a");
        Hub b = hubs.dialOnly("own-move-b", a);
        try (TestNodeClient rival = TestNodeClient.connect(b, TestHubs.TOKEN, "queue-rival")) {
            TestNodeClient owner = TestNodeClient.connect(a, TestHubs.TOKEN, "queue-owner");
            assertThat(owner.bind("queue", 6000).status()).isEqualTo(ResultStatus.OK);
            await().atMost(GOSSIP)
                    .untilAsserted(() -> assertThat(
                                    rival.lookup(LookupKind.NAME, "queue").status())
                            .isEqualTo(ResultStatus.OK));
            owner.close();
            // Hub a's reservation reaches hub b by gossip: b refuses the rival, naming hub a.
            await().atMost(GOSSIP)
                    .untilAsserted(() -> assertThat(rival.bind("queue", 1)).satisfies(r -> {
                        assertTakenFrom(r, owner, rival);
                        assertThat(r.message()).contains("reserved for node " + owner.id() + " at hub " + a.id());
                    }));

            try (TestNodeClient atB = relink(b, "queue-owner")) {
                assertThat(atB.bind("queue", 6000).status()).isEqualTo(ResultStatus.OK);
                assertThat(rival.lookup(LookupKind.NAME, "queue").entries())
                        .containsExactly(atB.identityText() + ":6000");
                assertThat(rival.bind("queue", 1)).satisfies(r -> assertTakenFrom(r, atB, rival));
            }
        }
    }

    @Test
    void aReservationEndsAfterItsTime() throws Exception {
        Hub a = hubs.start("own-expiry", b -> b.nameReservation(Duration.ofMillis(400)));
        TestNodeClient owner = TestNodeClient.connect(a, TestHubs.TOKEN, "cache-owner");
        assertThat(owner.bind("cache", 11211).status()).isEqualTo(ResultStatus.OK);
        owner.close();
        try (TestNodeClient rival = TestNodeClient.connect(a, TestHubs.TOKEN, "cache-rival")) {
            await().atMost(GOSSIP)
                    .untilAsserted(
                            () -> assertThat(rival.bind("cache", 1).status()).isEqualTo(ResultStatus.OK));
            assertThat(rival.lookup(LookupKind.NAME, "cache").entries()).containsExactly(rival.identityText() + ":1");
        }
    }

    @Test
    void withoutAReservationANameIsFreeAsSoonAsItsNodeLeaves() throws Exception {
        Hub a = hubs.start("own-none", b -> b.nameReservation(Duration.ZERO));
        TestNodeClient owner = TestNodeClient.connect(a, TestHubs.TOKEN, "spool-owner");
        assertThat(owner.bind("spool", 515).status()).isEqualTo(ResultStatus.OK);
        owner.close();
        try (TestNodeClient rival = TestNodeClient.connect(a, TestHubs.TOKEN, "spool-rival")) {
            await().atMost(GOSSIP)
                    .untilAsserted(
                            () -> assertThat(rival.bind("spool", 1).status()).isEqualTo(ResultStatus.OK));
        }
    }

    private static void assertTakenFrom(Result r, TestNodeClient holder, TestNodeClient claimant) {
        assertThat(r.status()).isEqualTo(ResultStatus.NAME_TAKEN);
        assertThat(r.message())
                .contains(holder.id().toString())
                .contains(claimant.id().toString());
    }

    /** The node of that test name links again with its key, once the hub has let its old link go. */
    private static TestNodeClient relink(Hub hub, String name) {
        AtomicReference<TestNodeClient> back = new AtomicReference<>();
        await().atMost(GOSSIP).ignoreExceptions().until(() -> {
            back.set(TestNodeClient.connect(hub, TestHubs.TOKEN, name));
            return true;
        });
        return back.get();
    }
}
