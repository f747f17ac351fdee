package io.traverse.hub;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.traverse.hub.HubStatus.IdConflictStatus;
import io.traverse.wire.Gossip;
import io.traverse.wire.HubDescription;
import io.traverse.wire.LookupKind;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hub ids on one host: default ids kept in state files keep hubs apart and stable; two hubs with
 * one id are refused and reported naming both; a hub dialling itself is still recognised as itself.
 */
class HubIdentityTest {
    private static final Duration WAIT = Duration.ofSeconds(10);

    private final TestHubs hubs = new TestHubs();

    @TempDir
    Path dir;

    @AfterEach
    void closeHubs() {
        hubs.close();
    }

    /** A hub with the default name (shown as host:port) and its key kept in {@code file}. */
    private Hub defaultIdHub(Path file, Hub... peers) throws Exception {
        return hubs.start(null, b -> b.keyFile(file), peers);
    }

    @Test
    void hubsWithDefaultIdsOnOneHostFormOneNetworkAndKeepTheirIdsAcrossRestarts() throws Exception {
        Path fileA = dir.resolve("a/hub.key");
        Path fileB = dir.resolve("b/hub.key");
        Hub a = defaultIdHub(fileA);
        Hub b = defaultIdHub(fileB, a);
        assertThat(a.id()).isNotEqualTo(b.id());
        assertThat(Files.readString(fileA)).contains("Its id is " + a.id() + ".");
        assertThat(Files.readString(fileB)).contains("Its id is " + b.id() + ".");
        // The display name stays the human-friendly default; it no longer decides the id.
        assertThat(a.name()).endsWith(":" + a.linkAddress().getPort());
        assertThat(a.status().idSource()).isEqualTo("key kept in " + fileA);
        assertNodesBehindEachAreKnownToTheOther(a, b);

        // b restarts with its file: same id, and the network takes it back.
        var bId = b.id();
        b.close();
        Hub b2 = defaultIdHub(fileB, a);
        assertThat(b2.id()).isEqualTo(bId);
        assertNodesBehindEachAreKnownToTheOther(a, b2);
        assertThat(a.status().idConflicts()).isEmpty();
        assertThat(b2.status().idConflicts()).isEmpty();
    }

    @Test
    void twoHubsWithOneHostNameAndPortAreTwoHubs() throws Exception {
        // The case that used to split networks: the same <hostname>:<port> (containers, cloned VMs, namespaces),
        // here two loopback addresses of one host with one port. Their names are equal, their ids are not.
        Hub a = null;
        Hub b = null;
        for (int attempt = 0; b == null; attempt++) {
            int port;
            try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
                port = probe.getLocalPort();
            }
            try {
                a = hubs.start(
                        null,
                        port,
                        x -> x.keyFile(dir.resolve("one/hub.key")).advertisedAddresses(List.of("127.0.0.1:" + port)));
                b = hubs.start(
                        null,
                        port,
                        x -> x.bindAddress("127.0.0.2")
                                .keyFile(dir.resolve("two/hub.key"))
                                .advertisedAddresses(List.of("127.0.0.2:" + port)),
                        a);
            } catch (java.io.IOException portTaken) {
                // The port was free on 127.0.0.1 but not on 127.0.0.2 (or taken meanwhile): another one. Only the
                // starts are retried, and a is closed, so that its key file is free for the next attempt.
                if (a != null) {
                    a.close();
                    a = null;
                }
                assertThat(attempt).as("free ports: " + portTaken.getMessage()).isLessThan(5);
            }
        }
        assertThat(b.name()).isEqualTo(a.name());
        assertThat(b.id()).isNotEqualTo(a.id());
        assertNodesBehindEachAreKnownToTheOther(a, b);
        assertThat(a.status().knownHubs().get(b.id()).name()).isEqualTo(a.name());
        assertThat(a.status().idConflicts()).isEmpty();
        assertThat(b.status().idConflicts()).isEmpty();
    }

    private static void assertNodesBehindEachAreKnownToTheOther(Hub a, Hub b) throws Exception {
        // At each hub's own bound address: the hubs may share a port on two loopback addresses.
        try (TestNodeClient atA = TestNodeClient.connect(
                        a.linkAddress(), TestHubs.TOKEN, TestKeys.id("node-at-" + a.id().shortForm()));
                TestNodeClient atB = TestNodeClient.connect(
                        b.linkAddress(), TestHubs.TOKEN, TestKeys.id("node-at-" + b.id().shortForm()))) {
            await().atMost(WAIT).untilAsserted(() -> {
                // The node's hub first, then that hub's addresses.
                assertThat(atA.lookup(LookupKind.NODE, atB.id().toString()).entries())
                        .first()
                        .isEqualTo(b.id().toString());
                assertThat(atB.lookup(LookupKind.NODE, atA.id().toString()).entries())
                        .first()
                        .isEqualTo(a.id().toString());
            });
        }
    }

    @Test
    void aClonedKeyFileIsReportedByBothHubsNamingBoth() throws Exception {
        // A cloned VM: the second installation carries the first one's key file.
        Path original = dir.resolve("vm1/hub.key");
        Hub first = defaultIdHub(original);
        Path clone = Files.createDirectories(dir.resolve("vm2")).resolve("hub.key");
        Files.copy(original, clone, StandardCopyOption.COPY_ATTRIBUTES); // owner-only, as the hub requires
        Hub second = defaultIdHub(clone, first);
        assertThat(second.id()).isEqualTo(first.id());
        assertThat(second.name()).isNotEqualTo(first.name());

        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(first.status().idConflicts()).singleElement().satisfies(c -> {
                assertThat(c.seen()).isEqualTo("dialled-us");
                assertThat(c.otherName()).isEqualTo(second.name());
                assertThat(c.otherAddress()).startsWith("127.0.0.1:");
                assertThat(c.otherAdvertisedAddresses()).isEqualTo(second.advertisedAddresses());
                assertNamesBoth(c, first, second);
            });
            assertThat(second.status().idConflicts()).singleElement().satisfies(c -> {
                assertThat(c.seen()).isEqualTo("we-dialled");
                assertThat(c.otherAddress())
                        .isEqualTo("127.0.0.1:" + first.linkAddress().getPort());
                // The refusal it got back names both hubs.
                assertNamesBoth(c, first, second);
            });
        });
        assertThat(first.status().hubLinks()).isEmpty();
        assertThat(second.status().hubLinks()).isEmpty();
        assertThat(first.metrics().scrape()).containsPattern("traverse_hub_id_conflicts_total\\{[^}]*} [1-9]");
    }

    private static void assertNamesBoth(IdConflictStatus conflict, Hub first, Hub second) {
        assertThat(conflict.detail())
                .contains("two hubs have id " + first.id())
                .contains("hub '" + first.name() + "' (advertising " + String.join(", ", first.advertisedAddresses()))
                .contains("hub '" + second.name() + "' (advertising " + String.join(", ", second.advertisedAddresses()))
                .contains("linking from 127.0.0.1:");
    }

    @Test
    void twoHubsGivenTheSameNameAndKeyAreRefusedAndTheConflictIsInTheStatus() throws Exception {
        // The id is the key's: the same name gives the same id only with the same key, as a copied
        // installation (the name and the key file copied along) has.
        Path original = dir.resolve("one/hub.key");
        Hub first = hubs.start("same-name", b -> b.keyFile(original));
        Path clone = Files.createDirectories(dir.resolve("two")).resolve("hub.key");
        Files.copy(original, clone, StandardCopyOption.COPY_ATTRIBUTES);
        Hub second = hubs.start("same-name", b -> b.keyFile(clone), first);
        assertThat(second.id()).isEqualTo(first.id());
        await().atMost(WAIT).untilAsserted(() -> {
            List<IdConflictStatus> atFirst = first.status().idConflicts();
            assertThat(atFirst).singleElement().satisfies(c -> {
                assertThat(c.otherName()).isEqualTo("same-name");
                assertThat(c.detail())
                        .contains("its link was refused: two hubs have id " + first.id())
                        .contains("(advertising " + first.advertisedAddresses().get(0) + ", key kept in " + original
                                + ")")
                        .contains("(advertising " + second.advertisedAddresses().get(0) + ") linking from 127.0.0.1:");
            });
            assertThat(second.status().idConflicts())
                    .singleElement()
                    .satisfies(c -> assertThat(c.detail())
                            .startsWith("the hub at 127.0.0.1:"
                                    + first.linkAddress().getPort()
                                    + " refused this hub's link: DUPLICATE_ID: two hubs have id " + first.id()));
        });
        // Redialled now and then (the operator may fix it), each time counted on the same entry.
        assertThat(first.status().idConflicts()).hasSize(1);
    }

    @Test
    void aSecondHubWithTheIdOfAHubLinkedHereIsRefusedByTheThirdHubNamingBoth() throws Exception {
        // a and b share an id (a cloned file) and both dial c; neither advertises, so a and b never meet.
        Hub c = hubs.dialOnly("middle");
        Path original = dir.resolve("a/hub.key");
        Hub a = hubs.start(null, x -> x.keyFile(original).advertisedAddresses(List.of()), c);
        await().atMost(WAIT).until(() -> c.status().hubLinks().size() == 1);
        String aLink = c.status().hubLinks().get(0).remoteAddress();
        Path clone = Files.createDirectories(dir.resolve("b")).resolve("hub.key");
        Files.copy(original, clone, java.nio.file.StandardCopyOption.COPY_ATTRIBUTES);
        Hub b = hubs.start(null, x -> x.keyFile(clone).advertisedAddresses(List.of()), c);

        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(c.status().idConflicts()).singleElement().satisfies(conflict -> {
                assertThat(conflict.hubId()).isEqualTo(a.id());
                assertThat(conflict.seen()).isEqualTo("both-linked-here");
                assertThat(conflict.otherName()).isEqualTo(b.name());
                assertThat(conflict.detail())
                        .contains("two hubs have id " + a.id() + ": hub '" + a.name() + "' (advertising no address)"
                                + " linked to hub 'middle' from " + aLink + ", and hub '" + b.name()
                                + "' (advertising no address) linking from");
            });
            assertThat(b.status().idConflicts()).singleElement().satisfies(conflict -> {
                assertThat(conflict.seen()).isEqualTo("reported");
                assertThat(conflict.detail())
                        .contains("refused this hub's link: DUPLICATE_ID: two hubs have id " + a.id());
            });
        });
        // The hub linked first keeps its link: the two do not take turns at every redial.
        await().during(Duration.ofMillis(1500))
                .atMost(Duration.ofSeconds(3))
                .untilAsserted(() -> assertThat(c.status().hubLinks())
                        .extracting(HubStatus.HubLinkStatus::remoteAddress)
                        .containsExactly(aLink));
        assertThat(a.status().idConflicts()).isEmpty();
    }

    @Test
    void aDescriptionOfAnotherHubWithThisHubsIdIsReportedAnEarlierLifeIsNot() throws Exception {
        Hub a = hubs.advertised("gossiped");
        try (RawHubLink impostor = RawHubLink.connect(a, "raw-neighbour")) {
            // This hub's own description, ahead of it (an earlier life whose clock was ahead): moved past, no conflict.
            long ahead = a.status().stateNumber() + 1_000_000;
            impostor.send(new Gossip(new HubDescription(
                    a.id(), ahead, a.name(), a.advertisedAddresses(), List.of(), List.of(), List.of())));
            await().atMost(WAIT).until(() -> a.status().stateNumber() > ahead);
            assertThat(a.status().idConflicts()).isEmpty();
            // Another name and address under this hub's id: another hub.
            impostor.send(new Gossip(new HubDescription(
                    a.id(), 5, "elsewhere:17000", List.of("192.0.2.7:17000"), List.of(), List.of(), List.of())));
            await().atMost(WAIT)
                    .untilAsserted(() -> assertThat(a.status().idConflicts())
                            .singleElement()
                            .satisfies(conflict -> {
                                assertThat(conflict.seen()).isEqualTo("gossip");
                                assertThat(conflict.otherName()).isEqualTo("elsewhere:17000");
                                assertThat(conflict.otherAdvertisedAddresses()).containsExactly("192.0.2.7:17000");
                                assertThat(conflict.detail())
                                        .contains("two hubs have id " + a.id() + ": hub 'gossiped' (advertising "
                                                + a.advertisedAddresses().get(0))
                                        .contains("hub 'elsewhere:17000' (advertising 192.0.2.7:17000), whose"
                                                + " description came through hub " + TestKeys.id("raw-neighbour"));
                            }));
        }
    }

    @Test
    void aHubGivenItsOwnAddressAsAPeerRecognisesItself() throws Exception {
        int port;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        int ownPort = port;
        Hub self = hubs.start("narcissus", ownPort, b -> b.peer("127.0.0.1:" + ownPort));
        Hub other = hubs.dialOnly("echo", self);
        await().atMost(WAIT).until(() -> self.status().hubLinks().size() == 1);
        // It dialled itself (at once, at its first dial tick) and took it for itself: no conflict, no link to itself.
        await().during(Duration.ofMillis(1500)).atMost(Duration.ofSeconds(3)).untilAsserted(() -> {
            HubStatus status = self.status();
            assertThat(status.idConflicts()).isEmpty();
            assertThat(status.hubLinks())
                    .extracting(HubStatus.HubLinkStatus::peerId)
                    .containsExactly(other.id());
        });
    }
}
