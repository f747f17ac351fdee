package io.traverse.splice;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.traverse.HubDirectory;
import io.traverse.HubLinkStatus;
import io.traverse.identity.NodeId;
import io.traverse.protocol.Deadline;
import io.traverse.spi.AttemptFailedException;
import io.traverse.spi.FailureScope;
import io.traverse.wire.EndpointEcho;
import io.traverse.wire.LinkPreamble;
import io.traverse.wire.LinkRole;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Choosing a hub that sees this node's public side when its own hub sees only its private one:
 * which advertised addresses count, that the own hub's private view refuses a splice at once when
 * no hub is public, and that a hub that does not answer costs one bounded timeout before the next.
 * The hubs here are loopback fakes that echo a chosen address (what a hub past a NAT would see).
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class PublicEchoHubsTest {
    private static final NodeId HUB_ID = NodeId.random();
    private final List<FakeHub> hubs = new ArrayList<>();
    private final ExecutorService executor = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "test-splice");
        t.setDaemon(true);
        return t;
    });

    @AfterEach
    void closeHubs() throws IOException {
        for (FakeHub hub : hubs) {
            hub.close();
        }
        executor.shutdownNow();
    }

    @Test
    void candidatesArePublicAdvertisedAddressesNearestFirstOnePerHubBounded() throws Exception {
        InetSocketAddress linkHub = address("198.18.0.1", 17000);
        List<HubDirectory.Hub> listed = List.of(
                hub("far", 3, address("198.18.3.1", 17000)),
                hub("own", 0, linkHub, address("10.0.0.1", 17000)),
                hub("private-only", 1, address("192.168.1.1", 17000), address("172.16.0.1", 17000)),
                hub("cgnat", 1, address("100.64.0.9", 17000)),
                hub("near", 1, address("10.1.0.1", 17000), address("198.18.1.1", 17000), address("198.18.1.2", 17000)),
                hub("loopback", 2, address("127.0.0.1", 17000)),
                hub("dial-out-only", 1),
                hub("second", 2, address("198.19.2.1", 17000)));

        assertThat(PublicEchoHubs.candidates(listed, linkHub, 4))
                .containsExactly(
                        address("198.18.1.1", 17000), address("198.19.2.1", 17000), address("198.18.3.1", 17000));
        assertThat(PublicEchoHubs.candidates(listed, linkHub, 2))
                .containsExactly(address("198.18.1.1", 17000), address("198.19.2.1", 17000));
        assertThat(PublicEchoHubs.candidates(List.of(hub("own", 0, linkHub)), linkHub, 4))
                .isEmpty();
        assertThat(PublicEchoHubs.isPublic(InetAddress.getByName("fd00::1"))).isFalse();
        assertThat(PublicEchoHubs.isPublic(InetAddress.getByName("2001:db8::1")))
                .isTrue();
        assertThat(PublicEchoHubs.isPublic(InetAddress.getByName("169.254.1.1")))
                .isFalse();
    }

    @Test
    void withNoHubSeeingAPublicSideASpliceIsRefusedAtOnceWithoutAnotherEcho() throws Exception {
        FakeHub own = start(new FakeHub("10.0.0.5", true));
        AtomicInteger asked = new AtomicInteger();
        SpliceEndpoints endpoints = endpoints(own, linkHub -> {
            asked.incrementAndGet();
            return List.of();
        });

        endpoints.learn(Deadline.after(Duration.ofSeconds(5)));
        assertThat(asked).hasValue(1);
        assertThat(endpoints.profile().publicAddress().getHostAddress()).isEqualTo("10.0.0.5");
        int echoesSoFar = own.connections.get();
        assertThatThrownBy(() -> endpoints.next(Deadline.after(Duration.ofSeconds(5))))
                .isInstanceOfSatisfying(
                        AttemptFailedException.class, e -> assertThat(e.scope()).isEqualTo(FailureScope.MODULE))
                .hasMessageContaining("a private address")
                .hasMessageContaining("no public endpoint to splice with");
        assertThat(own.connections).as("the refusal needs no echo").hasValue(echoesSoFar);
    }

    @Test
    void aHubThatDoesNotAnswerDoesNotHoldUpAnotherPublicHubsEcho() throws Exception {
        // Rockstar's node in the matrix: its own hub's public address (first, nearest) drops the echo behind a
        // firewall.
        FakeHub own = start(new FakeHub("10.0.0.5", true));
        FakeHub silent = start(new FakeHub("198.18.0.7", false));
        FakeHub alsoPrivate = start(new FakeHub("10.0.0.5", true));
        FakeHub publicHub = start(new FakeHub("198.18.0.9", true));
        Duration candidateTimeout = Duration.ofSeconds(4);
        SpliceEndpoints endpoints = endpoints(
                own,
                linkHub -> List.of(silent.address(), alsoPrivate.address(), publicHub.address()),
                candidateTimeout);

        long start = System.nanoTime();
        endpoints.learn(Deadline.after(Duration.ofSeconds(10)));
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

        // Its connection is counted when its accept thread gets it, which may come after the public
        // hub's answer ended the search (seen once in a full build).
        long askedBy = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        while (silent.connections.get() == 0 && System.nanoTime() - askedBy < 0) {
            Thread.sleep(10);
        }
        assertThat(silent.connections.get()).as("the silent hub was asked").isPositive();
        assertThat(alsoPrivate.connections.get())
                .as("a hub that also sees a private address is passed over")
                .isPositive();
        assertThat(tookMillis)
                .as("the public hub's echo, not the silent hub's timeout first")
                .isLessThan(candidateTimeout.toMillis());
        NatProfile profile = endpoints.profile();
        assertThat(profile.hub()).isEqualTo(publicHub.address());
        assertThat(profile.linkHub()).isEqualTo(own.address());
        assertThat(profile.publicAddress().getHostAddress()).isEqualTo("198.18.0.9");
        assertThat(profile.behaviour()).isEqualTo(PortPrediction.Behaviour.PRESERVING);

        int ownEchoes = own.connections.get();
        SpliceEndpoints.Endpoint mine = endpoints.next(Deadline.after(Duration.ofSeconds(5)));
        assertThat(mine.publicAddress().getHostAddress()).isEqualTo("198.18.0.9");
        assertThat(mine.publicFirstPorts()).isEqualTo(mine.localPorts());
        assertThat(own.connections)
                .as("a known public profile needs no echo per splice")
                .hasValue(ownEchoes);
    }

    @Test
    void theSearchTriesABoundedNumberOfHubs() throws Exception {
        FakeHub own = start(new FakeHub("10.0.0.5", true));
        List<FakeHub> silent = new ArrayList<>();
        for (int i = 0; i < PublicEchoHubs.MAX_CANDIDATES + 2; i++) {
            silent.add(start(new FakeHub("198.18.0." + (10 + i), false)));
        }
        SpliceEndpoints endpoints =
                endpoints(own, linkHub -> silent.stream().map(FakeHub::address).toList());

        endpoints.learn(Deadline.after(Duration.ofSeconds(5)));

        for (int i = 0; i < silent.size(); i++) {
            assertThat(silent.get(i).connections.get() > 0)
                    .as("hub %d asked", i)
                    .isEqualTo(i < PublicEchoHubs.MAX_CANDIDATES);
        }
        assertThat(endpoints.profile().publicAddress().getHostAddress()).isEqualTo("10.0.0.5");
        assertThatThrownBy(() -> endpoints.next(Deadline.after(Duration.ofSeconds(5))))
                .isInstanceOf(AttemptFailedException.class)
                .hasMessageContaining("no public endpoint to splice with");
    }

    @Test
    void aConnectBeforeAnyEchoStartsTheSearchAndWaitsForItsPublicEndpoint() throws Exception {
        // A cold node: its first splice comes before the echo learnt at link-up; it must not be refused for that.
        FakeHub own = start(new FakeHub("10.0.0.5", true));
        FakeHub publicHub = start(new FakeHub("198.18.0.9", true));
        SpliceEndpoints endpoints = endpoints(own, linkHub -> List.of(publicHub.address()));

        assertThat(endpoints
                        .next(Deadline.after(Duration.ofSeconds(5)))
                        .publicAddress()
                        .getHostAddress())
                .isEqualTo("198.18.0.9");
        assertThat(endpoints.profile().hub()).isEqualTo(publicHub.address());
    }

    @Test
    void aConnectDuringTheSearchWaitsForItInsteadOfRefusing() throws Exception {
        FakeHub own = start(new FakeHub("10.0.0.5", true));
        FakeHub publicHub = start(new FakeHub("198.18.0.9", true));
        CountDownLatch listing = new CountDownLatch(1);
        CountDownLatch letGo = new CountDownLatch(1);
        SpliceEndpoints endpoints = endpoints(own, linkHub -> {
            listing.countDown();
            try {
                letGo.await(); // the hub directory answers late: the search is under way meanwhile
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return List.of(publicHub.address());
        });
        executor.execute(() -> {
            try {
                endpoints.learn(Deadline.after(Duration.ofSeconds(5)));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        assertThat(listing.await(5, TimeUnit.SECONDS)).isTrue();

        Future<SpliceEndpoints.Endpoint> connect =
                executor.submit(() -> endpoints.next(Deadline.after(Duration.ofSeconds(5))));
        Thread.sleep(100);
        assertThat(connect).as("waits for the search, neither refused nor done").isNotDone();
        letGo.countDown();
        assertThat(connect.get(5, TimeUnit.SECONDS).publicAddress().getHostAddress())
                .isEqualTo("198.18.0.9");
    }

    @Test
    void theHoldBeforeASpliceIsUnderWayEndsWithTheSearchOrAfterItsCap() throws Exception {
        FakeHub own = start(new FakeHub("10.0.0.5", true));
        FakeHub publicHub = start(new FakeHub("198.18.0.9", true));
        CountDownLatch listing = new CountDownLatch(1);
        CountDownLatch letGo = new CountDownLatch(1);
        SpliceEndpoints endpoints = endpoints(own, linkHub -> {
            listing.countDown();
            try {
                letGo.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return List.of(publicHub.address());
        });
        assertThat(endpoints.awaitSearchUnderWay(Deadline.after(Duration.ofSeconds(5)), Duration.ofSeconds(5)))
                .as("no search: no hold")
                .isFalse();
        executor.execute(() -> {
            try {
                endpoints.learn(Deadline.after(Duration.ofSeconds(5)));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        assertThat(listing.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(endpoints.awaitSearchUnderWay(Deadline.after(Duration.ofSeconds(5)), Duration.ofMillis(50)))
                .as("a search that outlasts the cap: the hold ends at the cap")
                .isFalse();
        Future<Boolean> hold = executor.submit(
                () -> endpoints.awaitSearchUnderWay(Deadline.after(Duration.ofSeconds(5)), Duration.ofSeconds(5)));
        letGo.countDown();
        assertThat(hold.get(5, TimeUnit.SECONDS))
                .as("the search ended within the cap")
                .isTrue();
        assertThat(endpoints.profile().publicAddress().getHostAddress()).isEqualTo("198.18.0.9");
    }

    @Test
    void aConnectWhoseDeadlinePassesDuringTheSearchIsRefusedAsLooking() throws Exception {
        FakeHub own = start(new FakeHub("10.0.0.5", true));
        CountDownLatch letGo = new CountDownLatch(1);
        SpliceEndpoints endpoints = endpoints(own, linkHub -> {
            try {
                letGo.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return List.of();
        });
        try {
            assertThatThrownBy(() -> endpoints.next(Deadline.after(Duration.ofMillis(300))))
                    .isInstanceOf(AttemptFailedException.class)
                    .hasMessageContaining("yet (looking)");
        } finally {
            letGo.countDown();
        }
    }

    private SpliceEndpoints endpoints(FakeHub own, SpliceEndpoints.EchoCandidates candidates) {
        return endpoints(own, candidates, Duration.ofMillis(300));
    }

    private SpliceEndpoints endpoints(
            FakeHub own, SpliceEndpoints.EchoCandidates candidates, Duration candidateTimeout) {
        HubLinkStatus linked = new HubLinkStatus(
                HubLinkStatus.State.CONNECTED, "own", HUB_ID, own.address(), null, Instant.now(), null);
        return new SpliceEndpoints(
                () -> linked,
                candidates,
                candidateTimeout,
                InetAddress.getLoopbackAddress(),
                PortPrediction.Strategy.PRESERVE,
                1,
                executor);
    }

    private FakeHub start(FakeHub hub) {
        hubs.add(hub);
        executor.execute(hub::serve);
        return hub;
    }

    private static HubDirectory.Hub hub(String name, int hops, InetSocketAddress... addresses) {
        return new HubDirectory.Hub(NodeId.random(), name, hops, List.of(addresses));
    }

    private static InetSocketAddress address(String host, int port) throws IOException {
        return new InetSocketAddress(InetAddress.getByName(host), port);
    }

    /** A hub's echo as seen past a NAT that keeps ports: the caller's own port, at a chosen address; or silence. */
    private static final class FakeHub implements AutoCloseable {
        private final ServerSocket server;
        private final InetAddress shows;
        private final boolean answers;
        private final AtomicInteger connections = new AtomicInteger();
        private final List<Socket> held = new CopyOnWriteArrayList<>();

        FakeHub(String shows, boolean answers) throws IOException {
            this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            this.shows = InetAddress.getByName(shows);
            this.answers = answers;
        }

        InetSocketAddress address() {
            return new InetSocketAddress(server.getInetAddress(), server.getLocalPort());
        }

        void serve() {
            while (!server.isClosed()) {
                try {
                    Socket s = server.accept();
                    connections.incrementAndGet();
                    if (!answers) {
                        held.add(s); // accepted, never answered: the caller's read times out
                        continue;
                    }
                    try (s) {
                        s.getInputStream().readNBytes(LinkPreamble.LENGTH);
                        ByteBuffer preamble = ByteBuffer.allocate(LinkPreamble.LENGTH)
                                .putInt(LinkPreamble.MAGIC)
                                .putShort((short) LinkPreamble.VERSION)
                                .putShort((short) LinkRole.HUB.code());
                        s.getOutputStream().write(preamble.array());
                        s.getOutputStream().write(EndpointEcho.encode(new InetSocketAddress(shows, s.getPort())));
                    }
                } catch (IOException e) {
                    return;
                }
            }
        }

        @Override
        public void close() throws IOException {
            server.close();
            for (Socket s : held) {
                s.close();
            }
        }
    }
}
