package io.traverse.hub;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.traverse.wire.LookupKind;
import io.traverse.wire.LookupResult;
import io.traverse.wire.RejectCode;
import io.traverse.wire.ResultStatus;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Names bound at one hub, looked up at another, refused when taken, gone from lookups when their node leaves. */
class NameRegistryTest {
    private static final Duration GOSSIP = Duration.ofSeconds(10);
    private final TestHubs hubs = new TestHubs();

    @AfterEach
    void closeHubs() {
        hubs.close();
    }

    @Test
    void aNameBoundAtOneHubResolvesAtAnotherAndVanishesWithItsNode() throws Exception {
        Hub a = hubs.dialOnly("names-a");
        Hub c = hubs.dialOnly("names-c", a);
        try (TestNodeClient server = TestNodeClient.connect(a, TestHubs.TOKEN, "db-server");
                TestNodeClient client = TestNodeClient.connect(c, TestHubs.TOKEN, "db-client")) {
            assertThat(server.bind("orders-DB.site1", 5432).status()).isEqualTo(ResultStatus.OK);
            await().atMost(GOSSIP).untilAsserted(() -> {
                LookupResult found = client.lookup(LookupKind.NAME, "orders-db.site1");
                assertThat(found.status()).isEqualTo(ResultStatus.OK);
                assertThat(found.entries()).containsExactly(server.identityText() + ":5432");
            });
            assertThat(client.lookup(LookupKind.NAMES, "").entries())
                    .containsExactly("orders-db.site1 " + server.id() + " 5432 " + a.id());

            // Taken: by another node at another hub, and at the same hub.
            assertThat(client.bind("orders-db.site1", 1).status()).isEqualTo(ResultStatus.NAME_TAKEN);
            try (TestNodeClient rival = TestNodeClient.connect(a, TestHubs.TOKEN, "rival")) {
                assertThat(rival.bind("ORDERS-db.site1", 1)).satisfies(r -> {
                    assertThat(r.status()).isEqualTo(ResultStatus.NAME_TAKEN);
                    assertThat(r.message()).contains("held by node " + server.id());
                });
                assertThat(rival.release("orders-db.site1").status()).isEqualTo(ResultStatus.NOT_OWNER);
            }
            // The owner may move the name to another port.
            assertThat(server.bind("orders-db.site1", 6543).status()).isEqualTo(ResultStatus.OK);
            await().atMost(GOSSIP)
                    .untilAsserted(() -> assertThat(client.lookup(LookupKind.NAME, "orders-db.site1")
                                    .entries())
                            .containsExactly(server.identityText() + ":6543"));

            server.close();
            await().atMost(GOSSIP)
                    .untilAsserted(() -> assertThat(client.lookup(LookupKind.NAME, "orders-db.site1")
                                    .status())
                            .isEqualTo(ResultStatus.NOT_FOUND));
            // Gone from lookups, but kept for its node's key (NameOwnershipTest).
            assertThat(client.bind("orders-db.site1", 1).status()).isEqualTo(ResultStatus.NAME_TAKEN);
        }
    }

    @Test
    void namesThatAreNotHostnameSafeOrLookLikeAddressesAreInvalid() throws Exception {
        Hub a = hubs.dialOnly("names-rules");
        try (TestNodeClient node = TestNodeClient.connect(a, TestHubs.TOKEN, "rules")) {
            for (String bad : new String[] {"-db", "db-", "a..b", "10.0.0.1", "tv1-abc", "x".repeat(64)}) {
                assertThat(node.bind(bad, 80).status()).as(bad).isEqualTo(ResultStatus.INVALID);
            }
            assertThat(node.release("never-bound").status()).isEqualTo(ResultStatus.NOT_FOUND);
            assertThat(node.bind("ok-name", 80).status()).isEqualTo(ResultStatus.OK);
            assertThat(node.release("ok-name").status()).isEqualTo(ResultStatus.OK);
            assertThat(node.lookup(LookupKind.NAME, "ok-name").status()).isEqualTo(ResultStatus.NOT_FOUND);
        }
    }

    @Test
    void namesPerNodeAreLimited() throws Exception {
        Hub a = hubs.start("names-limit", b -> b.maxNamesPerNode(2));
        try (TestNodeClient node = TestNodeClient.connect(a, TestHubs.TOKEN, "greedy")) {
            assertThat(node.bind("one", 1).status()).isEqualTo(ResultStatus.OK);
            assertThat(node.bind("two", 2).status()).isEqualTo(ResultStatus.OK);
            assertThat(node.bind("three", 3).status()).isEqualTo(ResultStatus.LIMIT);
            assertThat(node.bind("one", 11).status())
                    .as("rebinding a held name")
                    .isEqualTo(ResultStatus.OK);
        }
    }

    @Test
    void aNodeMovingToAnotherHubTakesItsNamesAlong() throws Exception {
        Hub a = hubs.dialOnly("move-a");
        Hub b = hubs.dialOnly("move-b", a);
        try (TestNodeClient atA = TestNodeClient.connect(a, TestHubs.TOKEN, "mover");
                TestNodeClient observer = TestNodeClient.connect(b, TestHubs.TOKEN, "observer")) {
            assertThat(atA.bind("moving-svc", 7000).status()).isEqualTo(ResultStatus.OK);
            await().atMost(GOSSIP)
                    .untilAsserted(() -> assertThat(observer.lookup(LookupKind.NAME, "moving-svc")
                                    .status())
                            .isEqualTo(ResultStatus.OK));
            // While a holds the node, b refuses a second live node with its id, naming where it is.
            assertThatThrownBy(() -> TestNodeClient.connect(b, TestHubs.TOKEN, "mover"))
                    .isInstanceOfSatisfying(TestNodeClient.RejectedException.class, e -> {
                        assertThat(e.reject.code()).isEqualTo(RejectCode.DUPLICATE_ID);
                        assertThat(e.reject.reason()).contains("move-a");
                    });
            // Its link to a breaks; b admits it once a has let it go, and its name moves with it.
            atA.close();
            AtomicReference<TestNodeClient> moved = new AtomicReference<>();
            await().atMost(GOSSIP).ignoreExceptions().until(() -> {
                moved.set(TestNodeClient.connect(b, TestHubs.TOKEN, "mover"));
                return true;
            });
            try (TestNodeClient atB = moved.get()) {
                assertThat(atB.bind("moving-svc", 7000).status()).isEqualTo(ResultStatus.OK);
                await().atMost(GOSSIP).untilAsserted(() -> {
                    assertThat(observer.lookup(LookupKind.NAME, "moving-svc").entries())
                            .containsExactly(atB.identityText() + ":7000");
                    assertThat(observer.lookup(LookupKind.NODE, atB.id().toString())
                                    .entries())
                            .containsExactly(b.id().toString());
                });
            }
        }
    }

    @Test
    void lookupsListHubsLinksNodesAndLocateANode() throws Exception {
        Hub a = hubs.dialOnly("list-a");
        Hub b = hubs.dialOnly("list-b", a);
        try (TestNodeClient na = TestNodeClient.connect(a, TestHubs.TOKEN, "node-at-a");
                TestNodeClient nb = TestNodeClient.connect(b, TestHubs.TOKEN, "node-at-b")) {
            await().atMost(GOSSIP)
                    .untilAsserted(() -> assertThat(
                                    na.lookup(LookupKind.NODES, "").entries())
                            .containsExactlyElementsOf(Stream.of(
                                            na.id() + " " + a.id() + " " + na.identityText(),
                                            nb.id() + " " + b.id() + " " + nb.identityText())
                                    .sorted() // the hub lists nodes by id
                                    .toList()));
            assertThat(na.lookup(LookupKind.HUBS, "").entries())
                    .containsExactly(a.id() + " list-a 0 -", b.id() + " list-b 1 -");
            String[] pair = {a.id().toString(), b.id().toString()};
            java.util.Arrays.sort(pair);
            assertThat(na.lookup(LookupKind.LINKS, "").entries()).containsExactly(pair[0] + " " + pair[1]);
            assertThat(na.lookup(LookupKind.NODE, nb.id().toString()).entries()).containsExactly(b.id().toString());
            assertThat(na.lookup(LookupKind.NODE, "nobody").status()).isEqualTo(ResultStatus.NOT_FOUND);
            assertThat(na.lookup(LookupKind.NODE, "not a node id").status()).isEqualTo(ResultStatus.INVALID);
        }
    }
}
