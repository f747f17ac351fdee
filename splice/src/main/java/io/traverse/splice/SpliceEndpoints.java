package io.traverse.splice;

import io.traverse.HubLinkStatus;
import io.traverse.spi.AttemptFailedException;
import io.traverse.spi.Deadline;
import io.traverse.spi.FailureScope;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * This node's side of a splice: a local port to send SYNs from and the public ports the peer
 * should expect them from. Learns the NAT's behaviour with two echoes at the hub and keeps it
 * ({@link NatProfile}); a NAT that randomises ports is refused here, in one echo round trip.
 */
final class SpliceEndpoints {
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(SpliceEndpoints.class);

    /**
     * One local port per round and its predicted public side: the first of {@code candidates}
     * consecutive public ports per round.
     */
    record Endpoint(List<Integer> localPorts, InetAddress publicAddress, List<Integer> publicFirstPorts, int candidates,
            long hubRttNanos) {
        SpliceMessages.PublicEndpoint toMessage() {
            return new SpliceMessages.PublicEndpoint(publicAddress, publicFirstPorts, candidates);
        }
    }

    private final Supplier<HubLinkStatus> link;
    private final InetAddress bindAddress;
    private final PortPrediction.Strategy strategy;
    private final int ports;
    private final Executor executor;
    private volatile NatProfile profile;

    SpliceEndpoints(Supplier<HubLinkStatus> link, InetAddress bindAddress, PortPrediction.Strategy strategy, int ports,
            Executor executor) {
        this.link = link;
        this.bindAddress = bindAddress;
        this.strategy = strategy;
        this.ports = ports;
        this.executor = executor;
    }

    InetAddress bindAddress() {
        return bindAddress;
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
            throw new AttemptFailedException(FailureScope.MODULE, "no hub link to learn this node's public endpoint (" + status + ")");
        }
        NatProfile known = profile;
        HubEcho.Result fresh = null;
        if (known == null || !known.isFresh(System.nanoTime()) || !hub.equals(known.hub())) {
            HubEcho.Result[] two = echoTwice(hub, deadline);
            known = profile;
            fresh = two[1];
        }
        if (!strategy.splices(known.behaviour())) {
            throw new AttemptFailedException(FailureScope.MODULE, "this node's NAT maps ports " + known.behaviour().name()
                    .toLowerCase(java.util.Locale.ROOT) + " (traverse.splice.prediction=" + strategy.name().toLowerCase(java.util.Locale.ROOT)
                    + "): its public port cannot be predicted");
        }
        InetAddress seen = known.publicAddress();
        if (seen.isSiteLocalAddress() || seen.isLoopbackAddress() || seen.isLinkLocalAddress() || seen.isAnyLocalAddress()) {
            // The hub is on this node's own network: a peer elsewhere cannot send to what it saw.
            throw new AttemptFailedException(FailureScope.MODULE, "hub " + hub + " sees this node at " + seen.getHostAddress()
                    + ", a private address: no public endpoint to splice with");
        }
        if (known.behaviour() == PortPrediction.Behaviour.SEQUENTIAL && fresh == null) {
            fresh = HubEcho.ask(hub, bindAddress, 0, deadline.remainingMillis()); // the mapping moves on: echo right before
        }
        if (known.behaviour() == PortPrediction.Behaviour.SEQUENTIAL) {
            // One round: the next mapping is the echoed one's successor, not tied to a port of ours.
            List<Integer> predicted = PortPrediction.candidates(known.behaviour(), fresh.seen().getPort(), ports);
            if (predicted.isEmpty()) {
                throw new AttemptFailedException(FailureScope.MODULE, "no public port left after " + fresh.seen().getPort() + " to predict");
            }
            return new Endpoint(List.of(fresh.localPort()), known.publicAddress(), List.of(predicted.get(0)), predicted.size(),
                    known.hubRttNanos());
        }
        // A NAT that keeps ports: every round its own fresh port, the same on the public side.
        List<Integer> local = freePorts(SpliceSchedule.ROUNDS, fresh != null ? fresh.localPort() : 0);
        int candidates = Math.min(ports, 65535 - local.stream().mapToInt(Integer::intValue).max().orElse(0) + 1);
        return new Endpoint(local, known.publicAddress(), local, Math.max(1, candidates), known.hubRttNanos());
    }

    /** Forgets the NAT's behaviour (a splice that failed may mean it changed). */
    void forget() {
        profile = null;
    }

    /** Learns the NAT's behaviour now (when the hub link comes up), so that the first splice needs no echo. */
    void learn(Deadline deadline) throws IOException {
        HubLinkStatus status = link.get();
        if (status.isConnected() && status.hubAddress() != null) {
            echoTwice(status.hubAddress(), deadline);
        }
    }

    /** Two echoes from two fresh local ports; the profile they show is kept. */
    private HubEcho.Result[] echoTwice(InetSocketAddress hub, Deadline deadline) throws IOException {
        int millis = deadline.remainingMillis();
        if (millis <= 0) {
            throw new SocketTimeoutException("connect timed out before the endpoint echo");
        }
        CompletableFuture<HubEcho.Result> other = CompletableFuture.supplyAsync(() -> {
            try {
                return HubEcho.ask(hub, bindAddress, 0, millis);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }, executor);
        HubEcho.Result first;
        try {
            first = HubEcho.ask(hub, bindAddress, 0, millis);
        } catch (IOException e) {
            other.cancel(false);
            throw echoFailed(hub, e);
        }
        try {
            HubEcho.Result second = other.get(Math.max(1, deadline.remainingMillis()), TimeUnit.MILLISECONDS);
            PortPrediction.Behaviour behaviour = PortPrediction.classify(first.echo(), second.echo(), Math.max(ports, 2));
            profile = new NatProfile(hub, second.seen().getAddress(), behaviour, Math.min(first.connectNanos(), second.connectNanos()),
                    System.nanoTime());
            log.info("NAT seen from hub {}: local port {} -> {}, local port {} -> {}: {}", hub, first.localPort(), first.seen(),
                    second.localPort(), second.seen(), behaviour);
            return new HubEcho.Result[] {first, second};
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() instanceof java.io.UncheckedIOException u ? u.getCause() : e.getCause();
            throw echoFailed(hub, cause instanceof IOException io ? io : new IOException(cause));
        } catch (TimeoutException e) {
            throw new SocketTimeoutException("connect timed out waiting for the endpoint echo from hub " + hub);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted waiting for the endpoint echo");
        }
    }

    private static IOException echoFailed(InetSocketAddress hub, IOException e) {
        if (e instanceof SocketTimeoutException || e instanceof InterruptedIOException) {
            return e;
        }
        return new AttemptFailedException(FailureScope.MODULE, "hub " + hub + " gave no endpoint echo: " + e.getMessage());
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
