package io.traverse.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.traverse.VirtualSocketAddress;
import io.traverse.identity.NodeIdentity;
import io.traverse.identity.RandomIdentities;
import io.traverse.protocol.Deadline;
import java.io.IOException;
import java.net.InetAddress;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
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
 * The rules of asking DNS and the hub network at once, with a resolver the test answers for (the
 * testbed's {@code NamesWhereDnsIsSilentTest} uses a real one that drops queries).
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class HostNameResolverTest {
    private static final List<InetAddress> DNS_ADDRESSES = List.of(InetAddress.getLoopbackAddress());
    private final NodeIdentity registered = RandomIdentities.identity(new Random(23));
    private final ControlledDns dns = new ControlledDns();
    private final ControlledHub hub = new ControlledHub();
    private final HostNameResolver resolver = new HostNameResolver(dns, hub, Duration.ofSeconds(5), r -> {
        Thread t = new Thread(r, "test-dns");
        t.setDaemon(true);
        return t;
    });
    private final ExecutorService callers = Executors.newCachedThreadPool();

    @AfterEach
    void close() {
        dns.answer.countDown();
        resolver.close();
        callers.shutdownNow();
    }

    @Test
    void aNameTheHubNetworkHoldsDoesNotWaitForSilentDns() throws Exception {
        hub.linked = true;
        Future<HostNameResolver.Answer> answer = resolveLater("db", Duration.ofSeconds(10));
        hub.next().complete(Optional.of(new VirtualSocketAddress(registered, 7)));
        assertThat(answer.get(5, TimeUnit.SECONDS)).isEqualTo(new HostNameResolver.Registered(registered));
        dns.asked.await(5, TimeUnit.SECONDS);
        assertThat(dns.queries.get()).isEqualTo(1); // asked, and still silent
    }

    @Test
    void whenTheHubNetworkHoldsNoSuchNameDnsAnswersAsSoonAsItCan() throws Exception {
        hub.linked = true;
        Future<HostNameResolver.Answer> answer = resolveLater("web.example", Duration.ofSeconds(10));
        hub.next().complete(Optional.empty());
        Thread.sleep(100);
        assertThat(answer).isNotDone();
        dns.addresses = DNS_ADDRESSES;
        dns.answer.countDown();
        assertThat(answer.get(5, TimeUnit.SECONDS)).isEqualTo(new HostNameResolver.Resolved(DNS_ADDRESSES));
    }

    @Test
    void whileTheLinkIsDownANameDnsKnowsDoesNotWaitForTheHub() throws Exception {
        hub.linked = false;
        dns.addresses = DNS_ADDRESSES;
        dns.answer.countDown();
        HostNameResolver.Answer answer =
                resolver.resolve("web.example", Deadline.after(Duration.ofSeconds(10)), new Cancellation());
        assertThat(answer).isEqualTo(new HostNameResolver.Resolved(DNS_ADDRESSES));
        assertThat(hub.next())
                .as("the lookup waiting for the link, given up (its request slot freed)")
                .isCancelled();
    }

    @Test
    void withTheLinkUpTheHubNetworksAnswerWinsOverAQuickerDns() throws Exception {
        hub.linked = true;
        dns.addresses = DNS_ADDRESSES;
        dns.answer.countDown();
        Future<HostNameResolver.Answer> answer = resolveLater("db", Duration.ofSeconds(10));
        CompletableFuture<Optional<VirtualSocketAddress>> lookup = hub.next();
        Thread.sleep(100);
        assertThat(answer).isNotDone();
        lookup.complete(Optional.of(new VirtualSocketAddress(registered, 7)));
        assertThat(answer.get(5, TimeUnit.SECONDS)).isEqualTo(new HostNameResolver.Registered(registered));
    }

    @Test
    void aHubNetworkThatCannotBeAskedLeavesTheNameToDns() throws Exception {
        hub.linked = true;
        dns.addresses = DNS_ADDRESSES;
        dns.answer.countDown();
        Future<HostNameResolver.Answer> answer = resolveLater("web.example", Duration.ofSeconds(10));
        hub.next().completeExceptionally(new IOException("link lost"));
        assertThat(answer.get(5, TimeUnit.SECONDS)).isEqualTo(new HostNameResolver.Resolved(DNS_ADDRESSES));
    }

    @Test
    void aNameNeitherKnowsSaysWhatBothAnswered() throws Exception {
        hub.linked = true;
        dns.failure = new UnknownHostException("nowhere: Name or service not known");
        dns.answer.countDown();
        Future<HostNameResolver.Answer> answer = resolveLater("nowhere", Duration.ofSeconds(10));
        hub.next().complete(Optional.empty());
        assertThatThrownBy(() -> unwrap(answer))
                .isInstanceOf(UnknownHostException.class)
                .hasMessageContaining("no live node holds this name at the hub network")
                .hasMessageContaining("Name or service not known");
    }

    @Test
    void silentDnsAndAnUnknownNameEndAtTheDeadlineWithATimeout() throws Exception {
        hub.linked = true;
        Future<HostNameResolver.Answer> answer = resolveLater("nowhere", Duration.ofMillis(300));
        hub.next().complete(Optional.empty());
        assertThatThrownBy(() -> unwrap(answer))
                .isInstanceOf(SocketTimeoutException.class)
                .hasMessage(
                        "connect timed out resolving 'nowhere': the hub network does not hold it, and DNS has not answered");
    }

    @Test
    void whenNeitherAnswersTheTimeoutSaysSo() throws Exception {
        hub.linked = false;
        Future<HostNameResolver.Answer> answer = resolveLater("nowhere", Duration.ofMillis(300));
        CompletableFuture<Optional<VirtualSocketAddress>> lookup = hub.next();
        assertThatThrownBy(() -> unwrap(answer))
                .isInstanceOf(SocketTimeoutException.class)
                .hasMessage(
                        "connect timed out resolving 'nowhere': the hub network has not answered (hub link CONNECTING),"
                                + " and DNS has not answered");
        assertThat(lookup).isCancelled();
    }

    @Test
    void aHubNetworkThatCannotBeAskedAndSilentDnsTimeOutSayingBoth() throws Exception {
        hub.linked = true;
        Future<HostNameResolver.Answer> answer = resolveLater("nowhere", Duration.ofMillis(300));
        hub.next().completeExceptionally(new IOException("link lost"));
        assertThatThrownBy(() -> unwrap(answer))
                .isInstanceOf(SocketTimeoutException.class)
                .hasMessageContaining(
                        "the hub network could not be asked (hub link CONNECTED), and DNS has not answered");
    }

    @Test
    void connectsToOneNameAtOnceShareOneDnsQuery() throws Exception {
        hub.linked = false;
        List<Future<HostNameResolver.Answer>> answers = List.of(
                resolveLater("web.example", Duration.ofSeconds(10)),
                resolveLater("web.example", Duration.ofSeconds(10)),
                resolveLater("web.example", Duration.ofSeconds(10)));
        for (int i = 0; i < answers.size(); i++) {
            hub.next();
        }
        dns.addresses = DNS_ADDRESSES;
        dns.answer.countDown();
        for (Future<HostNameResolver.Answer> a : answers) {
            assertThat(a.get(5, TimeUnit.SECONDS)).isEqualTo(new HostNameResolver.Resolved(DNS_ADDRESSES));
        }
        assertThat(dns.queries.get()).isEqualTo(1);
        resolver.resolve("web.example", Deadline.after(Duration.ofSeconds(5)), new Cancellation());
        assertThat(dns.queries.get())
                .as("a later connect asks again; the JDK caches")
                .isEqualTo(2);
    }

    @Test
    void closingTheSocketWhileResolvingEndsTheWait() throws Exception {
        hub.linked = true;
        Cancellation cancellation = new Cancellation();
        Future<HostNameResolver.Answer> answer =
                callers.submit(() -> resolver.resolve("db", Deadline.after(Duration.ofSeconds(10)), cancellation));
        hub.next();
        cancellation.cancel();
        assertThatThrownBy(() -> unwrap(answer))
                .isInstanceOf(SocketException.class)
                .hasMessage("Socket closed");
    }

    private Future<HostNameResolver.Answer> resolveLater(String name, Duration within) {
        return callers.submit(() -> resolver.resolve(name, Deadline.after(within), new Cancellation()));
    }

    private static HostNameResolver.Answer unwrap(Future<HostNameResolver.Answer> answer) throws Exception {
        try {
            return answer.get(5, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            throw (Exception) e.getCause();
        }
    }

    /** A resolver that stays silent until the test lets it answer (as one that drops queries does until its timeout). */
    private static final class ControlledDns implements HostNameResolver.Dns {
        final CountDownLatch answer = new CountDownLatch(1);
        final CountDownLatch asked = new CountDownLatch(1);
        final AtomicInteger queries = new AtomicInteger();
        volatile List<InetAddress> addresses;
        volatile UnknownHostException failure;

        @Override
        public List<InetAddress> lookup(String host) throws UnknownHostException {
            queries.incrementAndGet();
            asked.countDown();
            try {
                answer.await();
            } catch (InterruptedException e) {
                throw new UnknownHostException(host + ": interrupted");
            }
            if (failure != null) {
                throw failure;
            }
            return addresses;
        }
    }

    /** A hub network whose lookups the test answers, in the order they were asked. */
    private static final class ControlledHub implements HostNameResolver.HubNames {
        final java.util.concurrent.BlockingQueue<CompletableFuture<Optional<VirtualSocketAddress>>> lookups =
                new java.util.concurrent.LinkedBlockingQueue<>();
        volatile boolean linked;

        /** The next lookup asked, waiting for it a while. */
        CompletableFuture<Optional<VirtualSocketAddress>> next() throws InterruptedException {
            CompletableFuture<Optional<VirtualSocketAddress>> f = lookups.poll(5, TimeUnit.SECONDS);
            assertThat(f).as("a lookup asked of the hub network").isNotNull();
            return f;
        }

        @Override
        public boolean linked() {
            return linked;
        }

        @Override
        public String linkStatus() {
            return linked ? "CONNECTED" : "CONNECTING";
        }

        @Override
        public CompletableFuture<Optional<VirtualSocketAddress>> lookup(String name, Duration within) {
            CompletableFuture<Optional<VirtualSocketAddress>> f = new CompletableFuture<>();
            lookups.add(f);
            return f;
        }
    }
}
