package io.traverse.splice;

import io.traverse.HubLinkStatus;
import io.traverse.protocol.Deadline;
import io.traverse.spi.AttemptFailedException;
import io.traverse.spi.FailureScope;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * This node's side of a splice: a local port to send SYNs from and the public ports the peer
 * should expect them from. Learns the NAT's behaviour with two echoes at the hub and keeps it
 * ({@link NatProfile}); a NAT that randomises ports is refused here, in one echo round trip. When
 * the own hub sees only a private address (it is on the node's site network), another hub of the
 * network with a public address echoes instead ({@link PublicEchoHubs}), found in the background by
 * asking the candidates at once; a splice that finds that search under way waits for it.
 */
final class SpliceEndpoints {
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(SpliceEndpoints.class);

    /**
     * One local port per round and its predicted public side: the first of {@code candidates}
     * consecutive public ports per round.
     */
    record Endpoint(
            List<Integer> localPorts,
            InetAddress publicAddress,
            List<Integer> publicFirstPorts,
            int candidates,
            long hubRttNanos) {
        SpliceMessages.PublicEndpoint toMessage() {
            return new SpliceMessages.PublicEndpoint(publicAddress, publicFirstPorts, candidates);
        }
    }

    /** Hubs that may see this node's public side when its own hub sees only its private one. */
    @FunctionalInterface
    interface EchoCandidates {
        /** Other hubs' addresses to ask for the echo, best first, bounded; empty if the network has none with a public address. */
        List<InetSocketAddress> find(InetSocketAddress linkHub) throws IOException;
    }

    private final Supplier<HubLinkStatus> link;
    private final EchoCandidates candidates;
    private final Duration candidateTimeout;
    private final InetAddress bindAddress;
    private final PortPrediction.Strategy strategy;
    private final int ports;
    private final Executor executor;
    /** The search for a public echo hub under way (one at a time), completed when it ends; null when none runs. */
    private final AtomicReference<CompletableFuture<Void>> search = new AtomicReference<>();

    private volatile NatProfile profile;

    SpliceEndpoints(
            Supplier<HubLinkStatus> link,
            EchoCandidates candidates,
            Duration candidateTimeout,
            InetAddress bindAddress,
            PortPrediction.Strategy strategy,
            int ports,
            Executor executor) {
        this.link = link;
        this.candidates = candidates;
        this.candidateTimeout = candidateTimeout;
        this.bindAddress = bindAddress;
        this.strategy = strategy;
        this.ports = ports;
        this.executor = executor;
    }

    InetAddress bindAddress() {
        return bindAddress;
    }

    /** What is known now (null before the first echo), for tests and diagnostics. */
    NatProfile profile() {
        return profile;
    }

    /**
     * A fresh endpoint for one splice.
     *
     * @throws AttemptFailedException ({@link FailureScope#MODULE}) when the NAT cannot be spliced or no hub is linked
     */
    Endpoint next(Deadline deadline) throws IOException {
        HubLinkStatus status = link.get();
        InetSocketAddress hub = status.hubAddress();
        if (!status.isConnected() || hub == null) {
            throw new AttemptFailedException(
                    FailureScope.MODULE, "no hub link to learn this node's public endpoint (" + status + ")");
        }
        NatProfile known = profile;
        HubEcho.Result fresh = null;
        if (known == null || !hub.equals(known.linkHub()) || !known.isFresh(System.nanoTime())) {
            // Measure again where the last profile came from (another hub, if the own one saw a private address).
            InetSocketAddress echoAt = known != null && hub.equals(known.linkHub()) ? known.hub() : hub;
            Measured two;
            try {
                two = echoTwice(
                        echoAt, hub, known != null && hub.equals(known.linkHub()) ? known.hubRttNanos() : 0, deadline);
            } catch (IOException e) {
                if (!echoAt.equals(hub)) {
                    profile = null; // that hub is gone: look for another, off the connect path
                    searchInBackground(hub);
                }
                throw e;
            }
            known = keep(two.profile());
            fresh = known == two.profile() ? two.second() : null;
            if (!known.seenPublic()) {
                searchInBackground(hub);
            }
        }
        if (!known.seenPublic()) {
            // A search under way is a few echoes, bounded by one candidate timeout: the first splice of a cold
            // node waits for it (within the connect's deadline) instead of leaving the connection to a relay.
            NatProfile found = awaitSearch(hub, deadline);
            if (found != null) {
                known = found;
                fresh = null;
            }
        }
        if (!strategy.splices(known.behaviour())) {
            throw new AttemptFailedException(
                    FailureScope.MODULE,
                    "this node's NAT maps ports " + known.behaviour().name().toLowerCase(java.util.Locale.ROOT)
                            + " (traverse.splice.prediction=" + strategy.name().toLowerCase(java.util.Locale.ROOT)
                            + "): its public port cannot be predicted");
        }
        InetAddress seen = known.publicAddress();
        if (!known.seenPublic()) {
            // The hub is on this node's own network: a peer elsewhere cannot send to what it saw.
            throw new AttemptFailedException(
                    FailureScope.MODULE,
                    "hub " + known.hub() + " sees this node at " + seen.getHostAddress()
                            + ", a private address, and no hub of the network with a public address has echoed its public side"
                            + (search.get() != null ? " yet (looking)" : "") + ": no public endpoint to splice with");
        }
        if (known.behaviour() == PortPrediction.Behaviour.SEQUENTIAL && fresh == null) {
            fresh = HubEcho.ask(
                    known.hub(), bindAddress, 0, deadline.remainingMillis()); // the mapping moves on: echo right before
        }
        if (known.behaviour() == PortPrediction.Behaviour.SEQUENTIAL) {
            // One round: the next mapping is the echoed one's successor, not tied to a port of ours.
            List<Integer> predicted =
                    PortPrediction.candidates(known.behaviour(), fresh.seen().getPort(), ports);
            if (predicted.isEmpty()) {
                throw new AttemptFailedException(
                        FailureScope.MODULE,
                        "no public port left after " + fresh.seen().getPort() + " to predict");
            }
            return new Endpoint(
                    List.of(fresh.localPort()),
                    known.publicAddress(),
                    List.of(predicted.get(0)),
                    predicted.size(),
                    known.hubRttNanos());
        }
        // A NAT that keeps ports: every round its own fresh port, the same on the public side.
        List<Integer> local = freePorts(SpliceSchedule.ROUNDS, fresh != null ? fresh.localPort() : 0);
        int candidates = Math.min(
                ports, 65535 - local.stream().mapToInt(Integer::intValue).max().orElse(0) + 1);
        return new Endpoint(local, known.publicAddress(), local, Math.max(1, candidates), known.hubRttNanos());
    }

    /** Forgets the NAT's behaviour (a splice that failed may mean it changed). */
    void forget() {
        profile = null;
    }

    /**
     * Learns the NAT's behaviour now (when the hub link comes up), so that the first splice needs
     * no echo; if the own hub sees a private address, looks for a hub that sees the public one.
     */
    void learn(Deadline deadline) throws IOException {
        HubLinkStatus status = link.get();
        InetSocketAddress hub = status.hubAddress();
        if (status.isConnected() && hub != null) {
            NatProfile own = keep(echoTwice(hub, hub, 0, deadline).profile());
            if (!own.seenPublic()) {
                searchPublicEchoHub(hub);
            }
        }
    }

    private void searchInBackground(InetSocketAddress linkHub) {
        CompletableFuture<Void> done = beginSearch();
        if (done == null) {
            return;
        }
        try {
            executor.execute(() -> search(linkHub, done));
        } catch (RejectedExecutionException e) {
            endSearch(done);
            log.debug("No thread to look for a public echo hub now: {}", e.getMessage());
        }
    }

    /** A new search's completion, or null if one is under way already. */
    private CompletableFuture<Void> beginSearch() {
        CompletableFuture<Void> done = new CompletableFuture<>();
        return search.compareAndSet(null, done) ? done : null;
    }

    private void endSearch(CompletableFuture<Void> done) {
        search.compareAndSet(done, null);
        done.complete(null);
    }

    /**
     * Waits for a search for a public echo hub under way to end, at most {@code max} and within
     * {@code deadline}; returns at once when none runs. True if one ran and ended meanwhile.
     */
    boolean awaitSearchUnderWay(Deadline deadline, Duration max) throws InterruptedIOException {
        CompletableFuture<Void> running = search.get();
        if (running == null) {
            return false;
        }
        long millis = Math.min(max.toMillis(), deadline.remainingMillis());
        if (millis <= 0) {
            return false;
        }
        try {
            running.get(millis, TimeUnit.MILLISECONDS);
            return true;
        } catch (TimeoutException | ExecutionException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted waiting for the public endpoint echo");
        }
    }

    /**
     * Waits for a search under way to end, within {@code deadline}; the public profile it found for
     * the link to {@code linkHub}, or null (none under way, none found, or the deadline passed).
     */
    private NatProfile awaitSearch(InetSocketAddress linkHub, Deadline deadline) throws IOException {
        CompletableFuture<Void> running = search.get();
        if (running != null) {
            long started = System.nanoTime();
            try {
                running.get(Math.max(1, deadline.remainingMillis()), TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                return null; // the caller refuses with "yet (looking)"; the connect's deadline is what ran out
            } catch (ExecutionException e) {
                return null;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted waiting for the public endpoint echo");
            }
            log.debug("Waited {} us for the search for a public echo hub", (System.nanoTime() - started) / 1000);
        }
        NatProfile now = profile;
        return now != null && now.seenPublic() && linkHub.equals(now.linkHub()) && now.isFresh(System.nanoTime())
                ? now
                : null;
    }

    /**
     * Asks the candidates all at once (each within the candidate timeout) and keeps the profile of
     * the first that sees a public address: a hub that drops the echo (a firewall in front of its
     * public address) then costs nothing while another answers, and the whole search at most one
     * candidate timeout. Without one, the private profile stays: splices are refused at once until
     * the profile is stale and the search runs again.
     */
    void searchPublicEchoHub(InetSocketAddress linkHub) {
        CompletableFuture<Void> done = beginSearch();
        if (done != null) {
            search(linkHub, done);
        }
    }

    private void search(InetSocketAddress linkHub, CompletableFuture<Void> done) {
        try {
            List<InetSocketAddress> hubs;
            try {
                hubs = candidates.find(linkHub);
            } catch (IOException e) {
                log.debug("Could not list the hubs to find a public echo hub: {}", e.getMessage());
                return;
            }
            List<InetSocketAddress> asked = hubs.subList(0, Math.min(hubs.size(), PublicEchoHubs.MAX_CANDIDATES));
            if (asked.isEmpty() || !linkHub.equals(link.get().hubAddress())) {
                log.info(
                        "No hub of the network with a public address to echo this node's public side: splice is refused at once");
                return;
            }
            log.debug("Looking for a public echo hub: asking {} at once", asked);
            NatProfile own = profile;
            long linkRtt = own != null && linkHub.equals(own.linkHub()) ? own.hubRttNanos() : 0;
            CompletableFuture<NatProfile> firstPublic = new CompletableFuture<>();
            AtomicInteger left = new AtomicInteger(asked.size());
            for (InetSocketAddress hub : asked) {
                Runnable ask = () -> {
                    try {
                        NatProfile seen = echoTwice(hub, linkHub, linkRtt, Deadline.after(candidateTimeout))
                                .profile();
                        if (seen.seenPublic()) {
                            firstPublic.complete(seen);
                        } else {
                            log.debug(
                                    "Hub {} also sees this node at a private address {}",
                                    hub,
                                    seen.publicAddress().getHostAddress());
                        }
                    } catch (IOException e) {
                        log.debug(
                                "Hub {} gave no endpoint echo within {} ms: {}",
                                hub,
                                candidateTimeout.toMillis(),
                                e.getMessage());
                    } finally {
                        if (left.decrementAndGet() == 0) {
                            firstPublic.complete(null);
                        }
                    }
                };
                try {
                    executor.execute(ask);
                } catch (RejectedExecutionException e) {
                    log.debug("No thread to ask hub {} for the endpoint echo: {}", hub, e.getMessage());
                    if (left.decrementAndGet() == 0) {
                        firstPublic.complete(null);
                    }
                }
            }
            NatProfile found;
            try {
                // Each echo is bounded by the candidate timeout; the margin only guards against a lost completion.
                found = firstPublic.get(2 * candidateTimeout.toMillis() + 1_000, TimeUnit.MILLISECONDS);
            } catch (TimeoutException | ExecutionException e) {
                found = null;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            if (found != null) {
                keep(found);
                log.info(
                        "Hub {} sees this node's public side at {} (its own hub {} sees only a private address): splicing with"
                                + " that endpoint",
                        found.hub(),
                        found.publicAddress().getHostAddress(),
                        linkHub);
                return;
            }
            log.info(
                    "No hub of the network sees this node's public side ({} asked of {} with a public address): splice is refused"
                            + " at once",
                    asked.size(),
                    hubs.size());
        } finally {
            endSearch(done);
        }
    }

    /**
     * Keeps {@code measured}, unless it is a private view of this node and a fresh public one of
     * the same link is known (a connect's echo at the own hub racing the background search).
     */
    private synchronized NatProfile keep(NatProfile measured) {
        NatProfile known = profile;
        if (known != null
                && !measured.seenPublic()
                && known.seenPublic()
                && known.linkHub().equals(measured.linkHub())
                && known.isFresh(System.nanoTime())) {
            return known;
        }
        profile = measured;
        return measured;
    }

    private record Measured(HubEcho.Result first, HubEcho.Result second, NatProfile profile) {}

    /**
     * Two echoes at {@code hub} from two fresh local ports, and the profile they show.
     * {@code linkRttNanos} is the round trip to the own hub if {@code hub} is another one (0: measure it here).
     */
    private Measured echoTwice(InetSocketAddress hub, InetSocketAddress linkHub, long linkRttNanos, Deadline deadline)
            throws IOException {
        int millis = deadline.remainingMillis();
        if (millis <= 0) {
            throw new SocketTimeoutException("connect timed out before the endpoint echo");
        }
        CompletableFuture<HubEcho.Result> other = CompletableFuture.supplyAsync(
                () -> {
                    try {
                        return HubEcho.ask(hub, bindAddress, 0, millis);
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                },
                executor);
        HubEcho.Result first;
        try {
            first = HubEcho.ask(hub, bindAddress, 0, millis);
        } catch (IOException e) {
            other.cancel(false);
            throw echoFailed(hub, e);
        }
        try {
            HubEcho.Result second = other.get(Math.max(1, deadline.remainingMillis()), TimeUnit.MILLISECONDS);
            PortPrediction.Behaviour behaviour =
                    PortPrediction.classify(first.echo(), second.echo(), Math.max(ports, 2));
            long rtt = hub.equals(linkHub) || linkRttNanos <= 0
                    ? Math.min(first.connectNanos(), second.connectNanos())
                    : linkRttNanos;
            NatProfile measured =
                    new NatProfile(hub, linkHub, second.seen().getAddress(), behaviour, rtt, System.nanoTime());
            log.info(
                    "NAT seen from hub {}: local port {} -> {}, local port {} -> {}: {}",
                    hub,
                    first.localPort(),
                    first.seen(),
                    second.localPort(),
                    second.seen(),
                    behaviour);
            return new Measured(first, second, measured);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() instanceof java.io.UncheckedIOException u ? u.getCause() : e.getCause();
            throw echoFailed(hub, cause instanceof IOException io ? io : new IOException(cause));
        } catch (TimeoutException e) {
            other.cancel(true);
            throw new SocketTimeoutException("timed out waiting for the endpoint echo from hub " + hub);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted waiting for the endpoint echo");
        }
    }

    private static IOException echoFailed(InetSocketAddress hub, IOException e) {
        if (e instanceof SocketTimeoutException || e instanceof InterruptedIOException) {
            return e;
        }
        return new AttemptFailedException(
                FailureScope.MODULE, "hub " + hub + " gave no endpoint echo: " + e.getMessage());
    }

    /** {@code count} different local ports free now (starting with {@code first} unless 0), for a NAT known to keep ports. */
    private List<Integer> freePorts(int count, int first) throws IOException {
        List<Socket> held = new java.util.ArrayList<>(count);
        List<Integer> found = new java.util.ArrayList<>(count);
        if (first != 0) {
            found.add(first);
        }
        try {
            while (found.size() < count) {
                Socket probe = new Socket();
                held.add(probe); // held until all are chosen, so no port comes twice
                probe.setReuseAddress(true);
                probe.bind(new InetSocketAddress(bindAddress, 0));
                if (!found.contains(probe.getLocalPort())) {
                    found.add(probe.getLocalPort());
                }
            }
            return found;
        } finally {
            for (Socket s : held) {
                s.close();
            }
        }
    }
}
