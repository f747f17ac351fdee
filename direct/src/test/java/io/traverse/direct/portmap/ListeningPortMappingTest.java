package io.traverse.direct.portmap;

import static org.assertj.core.api.Assertions.assertThat;

import io.traverse.HubDirectory;
import io.traverse.HubLinkStatus;
import io.traverse.SideChannel;
import io.traverse.TraverseConfig;
import io.traverse.identity.LocalInterfaces;
import io.traverse.identity.NodeIdentity;
import io.traverse.spi.AdvertisedExternal;
import io.traverse.spi.HandshakeDialer;
import io.traverse.spi.InboundConnections;
import io.traverse.spi.ModuleContext;
import io.traverse.spi.ModuleEvents;
import io.traverse.spi.RelayLink;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The mapping's life with scripted protocols: fall-through, renewal, loss, move, retry, close during a mapping. */
@Timeout(30)
class ListeningPortMappingTest {
    private static final int PORT = 4321;
    private static final Duration SHORT = Duration.ofMillis(100);
    /** The lease the node asks for (traverse.portmap.lease=1m). */
    private static final Duration ASKED_LEASE = Duration.ofMinutes(1);

    private static final Duration LEASE = Duration.ofMillis(400); // renewed every 200 ms

    private final FakeContext context = new FakeContext();

    @Test
    void theFirstProtocolThatMapsIsAdvertisedRenewedAndRemovedAtClose() throws Exception {
        ScriptedMapper broken = new ScriptedMapper("upnp", n -> null);
        ScriptedMapper working = new ScriptedMapper("pcp", n -> mapping("pcp", 40000));
        ListeningPortMapping mapping =
                ListeningPortMapping.start(context, ASKED_LEASE, List.of(broken, working), SHORT, SHORT);
        Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> working.renewals.get() >= 2);
        assertThat(context.advertised).containsExactly(external(40000));
        assertThat(mapping.current()).map(MappedPort::protocol).contains("pcp");
        assertThat(broken.maps.get()).isEqualTo(1);
        mapping.close();
        assertThat(working.unmapped).extracting(MappedPort::external).containsExactly(external(40000));
        assertThat(context.advertised).isEmpty();
        assertThat(mapping.current()).isEmpty();
        int renewals = working.renewals.get();
        Thread.sleep(500);
        assertThat(working.renewals.get()).as("no renewal after close").isEqualTo(renewals);
    }

    @Test
    void aLostMappingIsWithdrawnAndMadeAgain() throws Exception {
        ScriptedMapper mapper = new ScriptedMapper("natpmp", n -> mapping("natpmp", 40000 + n));
        mapper.failRenewal = true;
        try (ListeningPortMapping mapping =
                ListeningPortMapping.start(context, ASKED_LEASE, List.of(mapper), SHORT, SHORT)) {
            Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> mapper.maps.get() >= 2);
            Awaitility.await()
                    .atMost(Duration.ofSeconds(5))
                    .until(() -> context.history.contains("-" + external(40001)));
            assertThat(context.history).startsWith("+" + external(40001), "-" + external(40001), "+" + external(40002));
            // The router may still hold the mapping whose renewal got no answer; a new one may land
            // elsewhere (another port or protocol), so the old one is deleted before mapping again.
            assertThat(mapper.unmapped).extracting(MappedPort::external).startsWith(external(40001));
        }
        assertThat(context.advertised).isEmpty();
    }

    @Test
    void aMovedMappingReplacesTheAdvertisedAddress() throws Exception {
        ScriptedMapper mapper = new ScriptedMapper("upnp", n -> mapping("upnp", 40000));
        mapper.renewTo = 45000;
        try (ListeningPortMapping mapping =
                ListeningPortMapping.start(context, ASKED_LEASE, List.of(mapper), SHORT, SHORT)) {
            Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> context.advertised.contains(external(45000)));
            assertThat(context.advertised).containsExactly(external(45000));
        }
        assertThat(mapper.unmapped).extracting(MappedPort::external).containsExactly(external(45000));
    }

    @Test
    void whenNothingMapsItTriesAgainLater() throws Exception {
        ScriptedMapper mapper = new ScriptedMapper("pcp", n -> n < 3 ? null : mapping("pcp", 40000));
        try (ListeningPortMapping mapping =
                ListeningPortMapping.start(context, ASKED_LEASE, List.of(mapper), SHORT, SHORT)) {
            Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> context.advertised.contains(external(40000)));
            assertThat(mapper.maps.get()).isEqualTo(3);
        }
    }

    @Test
    void aMappingMadeWhileClosingIsDeletedByTheWorker() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch mapping = new CountDownLatch(1);
        ScriptedMapper slow = new ScriptedMapper("upnp", n -> {
            mapping.countDown();
            try {
                release.await(); // a router that takes its time; interrupts are ignored, as a blocking HTTP call would
            } catch (InterruptedException e) {
                try {
                    release.await();
                } catch (InterruptedException again) {
                    Thread.currentThread().interrupt();
                }
            }
            return mapping("upnp", 40000);
        });
        ListeningPortMapping portMapping =
                ListeningPortMapping.start(context, ASKED_LEASE, List.of(slow), SHORT, SHORT);
        mapping.await();
        long started = System.nanoTime();
        portMapping.close();
        assertThat(Duration.ofNanos(System.nanoTime() - started))
                .as("close waits a bounded time")
                .isLessThan(Duration.ofSeconds(5));
        release.countDown();
        Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> slow.unmapped.size() == 1);
        assertThat(context.advertised).isEmpty();
    }

    @Test
    void closeDuringARenewalThatFailsOnInterruptStillDeletesTheMapping() throws Exception {
        CountDownLatch renewing = new CountDownLatch(1);
        ScriptedMapper mapper = new ScriptedMapper("pcp", n -> mapping("pcp", 40000));
        mapper.duringRenewal = () -> {
            renewing.countDown();
            try {
                new CountDownLatch(1).await(); // until close() interrupts, as an interruptible socket would
            } catch (InterruptedException e) {
                throw new java.io.InterruptedIOException("interrupted");
            }
        };
        ListeningPortMapping portMapping =
                ListeningPortMapping.start(context, ASKED_LEASE, List.of(mapper), SHORT, SHORT);
        renewing.await();
        portMapping.close();
        assertThat(mapper.unmapped)
                .as("the mapping held when close() came is deleted at the router")
                .extracting(MappedPort::external)
                .containsExactly(external(40000));
        assertThat(context.advertised).isEmpty();
        assertThat(mapper.maps.get()).as("no new mapping once closed").isEqualTo(1);
    }

    @Test
    void aRenewalFinishingAfterCloseGaveUpAdvertisesNothingAndIsDeleted() throws Exception {
        CountDownLatch renewing = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ScriptedMapper mapper = new ScriptedMapper("upnp", n -> mapping("upnp", 40000));
        mapper.renewTo = 45000;
        mapper.duringRenewal = () -> {
            renewing.countDown();
            boolean interrupted = false;
            while (true) { // a blocking HTTP call: interrupts are ignored
                try {
                    release.await();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        };
        ListeningPortMapping portMapping =
                ListeningPortMapping.start(context, ASKED_LEASE, List.of(mapper), SHORT, SHORT);
        renewing.await();
        portMapping.close();
        release.countDown();
        Awaitility.await()
                .atMost(Duration.ofSeconds(5))
                .until(() -> mapper.unmapped.stream().anyMatch(m -> m.external().equals(external(45000))));
        Thread.sleep(200);
        assertThat(context.advertised)
                .as("nothing stays advertised after close")
                .isEmpty();
        assertThat(context.history).doesNotContain("+" + external(45000));
    }

    private static InetSocketAddress external(int port) {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
    }

    private static MappedPort mapping(String protocol, int externalPort) {
        return new MappedPort(
                protocol,
                external(externalPort),
                new InetSocketAddress(InetAddress.getLoopbackAddress(), PORT),
                LEASE,
                new byte[0]);
    }

    /** Runs inside a renewal (to hold it while close() comes). */
    private interface RenewalStep {
        void run() throws IOException;
    }

    /** A protocol whose n-th map (from 1) gives {@code maps.apply(n)}; null: fails. */
    private static final class ScriptedMapper implements PortMapper {
        final String name;
        final IntFunction<MappedPort> script;
        final AtomicInteger maps = new AtomicInteger();
        final AtomicInteger renewals = new AtomicInteger();
        final List<MappedPort> unmapped = new CopyOnWriteArrayList<>();
        volatile boolean failRenewal;
        volatile int renewTo;
        volatile RenewalStep duringRenewal;

        ScriptedMapper(String name, IntFunction<MappedPort> script) {
            this.name = name;
            this.script = script;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public MappedPort map(int internalPort, Duration lease) throws IOException {
            assertThat(internalPort).isEqualTo(PORT);
            MappedPort m = script.apply(maps.incrementAndGet());
            if (m == null) {
                throw new PortMappingException(name + ": no router");
            }
            return m;
        }

        @Override
        public MappedPort renew(MappedPort mapping, Duration lease) throws IOException {
            renewals.incrementAndGet();
            RenewalStep step = duringRenewal;
            if (step != null) {
                step.run();
            }
            if (failRenewal) {
                throw new PortMappingException(name + ": mapping lost");
            }
            int port = renewTo != 0 ? renewTo : mapping.external().getPort();
            return new MappedPort(name, external(port), mapping.internal(), mapping.lease(), mapping.nonce());
        }

        @Override
        public void unmap(MappedPort mapping) {
            unmapped.add(mapping);
        }
    }

    /** Only what port mapping uses: config, listening port, advertising. */
    private static final class FakeContext implements ModuleContext {
        final Set<InetSocketAddress> advertised = java.util.concurrent.ConcurrentHashMap.newKeySet();
        final ConcurrentLinkedQueue<String> history = new ConcurrentLinkedQueue<>();

        @Override
        public TraverseConfig config() {
            return TraverseConfig.builder().build();
        }

        @Override
        public int listeningPort() {
            return PORT;
        }

        @Override
        public AdvertisedExternal advertiseExternal(InetSocketAddress external) {
            advertised.add(external);
            history.add("+" + external);
            return new AdvertisedExternal() {
                @Override
                public InetSocketAddress address() {
                    return external;
                }

                @Override
                public void withdraw() {
                    advertised.remove(external);
                    history.add("-" + external);
                }
            };
        }

        @Override
        public NodeIdentity localIdentity() {
            throw new UnsupportedOperationException();
        }

        @Override
        public LocalInterfaces localInterfaces() {
            throw new UnsupportedOperationException();
        }

        @Override
        public HandshakeDialer handshakeDialer() {
            throw new UnsupportedOperationException();
        }

        @Override
        public SideChannel sideChannel() {
            throw new UnsupportedOperationException();
        }

        @Override
        public HubDirectory hubDirectory() {
            throw new UnsupportedOperationException();
        }

        @Override
        public InboundConnections inboundConnections() {
            throw new UnsupportedOperationException();
        }

        @Override
        public RelayLink relayLink() {
            throw new UnsupportedOperationException();
        }

        @Override
        public HubLinkStatus hubLinkStatus() {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<Void> hubLinkUp() {
            throw new UnsupportedOperationException();
        }

        @Override
        public ModuleEvents events() {
            throw new UnsupportedOperationException();
        }
    }
}
