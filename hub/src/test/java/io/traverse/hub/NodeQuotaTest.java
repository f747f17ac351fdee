package io.traverse.hub;

import static org.assertj.core.api.Assertions.assertThat;

import io.traverse.wire.LookupKind;
import io.traverse.wire.LookupResult;
import io.traverse.wire.Result;
import io.traverse.wire.ResultStatus;
import io.traverse.wire.SideMessage;
import io.traverse.wire.SideMessageError;
import io.traverse.wire.SideMessageKind;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The per-node quotas on requests: a node over one is refused that one request, in the request's
 * own answer, with a reason that starts with OVERLOAD and names the key; the node keeps its link,
 * its other kinds of request still work, and every other node is untouched.
 */
class NodeQuotaTest {
    private final TestHubs hubs = new TestHubs();
    private final List<TestNodeClient> nodes = new ArrayList<>();

    @AfterEach
    void closeAll() {
        nodes.forEach(TestNodeClient::close);
        hubs.close();
    }

    @Test
    void aSideRequestBeyondTheNodesQuotaGetsAnOverloadErrorNamingTheKey() throws Exception {
        Hub hub = hubs.start("quota-side", b -> b.maxPendingRequestsPerNode(3));
        TestNodeClient asker = node(hub, "asker");
        TestNodeClient silent = node(hub, "silent");
        TestNodeClient other = node(hub, "other");
        for (int i = 1; i <= 4; i++) {
            asker.send(SideMessage.request(i, asker.id(), silent.id(), "never-answers", new byte[0]));
        }
        SideMessage error = asker.await(SideMessage.class);
        assertThat(error.messageId()).isEqualTo(4);
        assertThat(error.errorCode()).isEqualTo(SideMessageError.OVERLOAD);
        assertThat(error.errorReason())
                .isEqualTo("OVERLOAD: node " + asker.id() + " has 3 side-channel requests waiting for an answer"
                        + " at hub quota-side, the most traverse.hub.max.pending.per.node allows");
        assertThat(overloads(hub, "side-requests-per-node")).isEqualTo(1);

        // The same node: its link is up, its names and lookups work, and it may still answer others.
        assertThat(asker.bind("asker-name", 80).status()).isEqualTo(ResultStatus.OK);
        assertThat(asker.lookup(LookupKind.NAME, "asker-name").status()).isEqualTo(ResultStatus.OK);
        other.send(SideMessage.request(7, other.id(), asker.id(), "echo", new byte[] {1}));
        SideMessage toAsker = asker.await(SideMessage.class);
        asker.send(toAsker.reply(new byte[] {2}));
        SideMessage reply = other.await(SideMessage.class);
        assertThat(reply.kind()).isEqualTo(SideMessageKind.REPLY);
        assertThat(reply.messageId()).isEqualTo(7);

        // Another node's requests to the same silent node are not counted against the first.
        other.send(SideMessage.request(8, other.id(), silent.id(), "never-answers", new byte[0]));
        List<SideMessage> held = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            held.add(silent.await(SideMessage.class));
        }
        assertThat(held).allSatisfy(m -> assertThat(m.from()).isEqualTo(asker.id()));
        assertThat(silent.await(SideMessage.class).messageId()).isEqualTo(8);

        // An answer gives the asker a place back.
        silent.send(held.get(0).reply(new byte[0]));
        assertThat(asker.await(SideMessage.class).kind()).isEqualTo(SideMessageKind.REPLY);
        asker.send(SideMessage.request(5, asker.id(), silent.id(), "never-answers", new byte[0]));
        assertThat(silent.await(SideMessage.class).messageId()).isEqualTo(5);
        assertThat(asker.isClosedByPeer()).isFalse();
    }

    @Test
    void aNameBeyondTheNodesQuotaIsRefusedWithTheKeyAndOthersStillBind() throws Exception {
        Hub hub = hubs.start("quota-names", b -> b.maxNamesPerNode(2));
        TestNodeClient greedy = node(hub, "greedy");
        TestNodeClient other = node(hub, "other");
        assertThat(greedy.bind("one", 1).status()).isEqualTo(ResultStatus.OK);
        assertThat(greedy.bind("two", 2).status()).isEqualTo(ResultStatus.OK);
        Result refused = greedy.bind("three", 3);
        assertThat(refused.status()).isEqualTo(ResultStatus.LIMIT);
        assertThat(refused.message())
                .isEqualTo("OVERLOAD: node " + greedy.id() + " holds 2 names at hub quota-names,"
                        + " the most traverse.hub.max.names.per.node allows");
        assertThat(overloads(hub, "names-per-node")).isEqualTo(1);

        // Its held names still resolve and move, it can release one and bind another; other nodes bind freely.
        assertThat(greedy.lookup(LookupKind.NAME, "one").status()).isEqualTo(ResultStatus.OK);
        assertThat(greedy.bind("one", 11).status()).isEqualTo(ResultStatus.OK);
        assertThat(other.bind("three", 3).status()).isEqualTo(ResultStatus.OK);
        assertThat(other.bind("four", 4).status()).isEqualTo(ResultStatus.OK);
        assertThat(greedy.release("two").status()).isEqualTo(ResultStatus.OK);
        assertThat(greedy.bind("five", 5).status()).isEqualTo(ResultStatus.OK);
        assertThat(greedy.isClosedByPeer()).isFalse();
    }

    @Test
    void lookupsBeyondTheNodesRateAreRefusedWithTheKeyAndOtherNodesStillLookUp() throws Exception {
        // One lookup a second after a burst of 5: the sixth in a row is refused (a token may come back meanwhile).
        Hub hub = hubs.start("quota-lookups", b -> b.lookupRatePerNode(1).lookupBurstPerNode(5));
        TestNodeClient eager = node(hub, "eager");
        TestNodeClient other = node(hub, "other");
        assertThat(other.bind("svc", 80).status()).isEqualTo(ResultStatus.OK);
        List<LookupResult> answers = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            answers.add(eager.lookup(LookupKind.NAME, "svc"));
        }
        List<LookupResult> refused =
                answers.stream().filter(r -> r.status() == ResultStatus.LIMIT).toList();
        assertThat(answers.subList(0, 5)).allSatisfy(r -> assertThat(r.status()).isEqualTo(ResultStatus.OK));
        assertThat(refused).hasSizeBetween(1, 3);
        assertThat(refused)
                .allSatisfy(r -> assertThat(r.entries())
                        .containsExactly("OVERLOAD: node " + eager.id() + " asks lookups faster than 1 a second after a"
                                + " burst of 5 (traverse.hub.lookup.burst.per.node) at hub quota-lookups, the most"
                                + " traverse.hub.lookup.rate.per.node allows"));
        assertThat(overloads(hub, "lookups-per-node")).isEqualTo(refused.size());

        // The same node still binds and sends side messages; another node looks up as it likes.
        assertThat(eager.bind("eager-svc", 81).status()).isEqualTo(ResultStatus.OK);
        eager.send(SideMessage.request(1, eager.id(), other.id(), "echo", new byte[0]));
        assertThat(other.await(SideMessage.class).from()).isEqualTo(eager.id());
        for (int i = 0; i < 5; i++) {
            assertThat(other.lookup(LookupKind.NAME, "eager-svc").status()).isEqualTo(ResultStatus.OK);
        }
        assertThat(eager.isClosedByPeer()).isFalse();
    }

    private TestNodeClient node(Hub hub, String id) throws Exception {
        TestNodeClient node = TestNodeClient.connect(hub, TestHubs.TOKEN, id);
        nodes.add(node);
        return node;
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
