package io.traverse.node;

import io.traverse.VirtualSocketAddress;
import io.traverse.identity.NodeIdentity;
import io.traverse.protocol.Deadline;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetAddress;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Turns a host name that may be registered at the hub network into what to connect to: the node
 * holding the name there, or DNS's addresses. Both are asked at once, so a site whose resolver
 * drops queries (DNS then answers only after its full timeout, 10 s with glibc's defaults) waits
 * for DNS only when the hub network does not hold the name either.
 *
 * <p>Which answer counts:
 * <ul>
 *   <li>a name the hub network holds wins;</li>
 *   <li>when the hub network answers that nobody holds it, or cannot be asked, DNS's answer is
 *       used as soon as it comes;</li>
 *   <li>while the hub link is not up yet, an answer from DNS is used at once: a name that DNS
 *       knows does not wait for the link;</li>
 *   <li>when neither has answered by the connect's deadline, the connect times out and says which
 *       was still awaited.</li>
 * </ul>
 *
 * <p>Each DNS query runs on a thread of its own, since the JDK's resolver blocks; connects to one
 * name at the same time share one query, so a silent resolver holds one thread per name, not one
 * per connect.
 */
final class HostNameResolver implements AutoCloseable {
    /** The system resolver; tests give one that answers as they need. */
    interface Dns {
        List<InetAddress> lookup(String host) throws UnknownHostException;

        Dns SYSTEM = host -> List.of(InetAddress.getAllByName(host));
    }

    /** The hub network's side: its name registry and whether the link is up now. */
    interface HubNames {
        boolean linked();

        /** The link's state in words, for an error that says why the hub network was not asked. */
        String linkStatus();

        /**
         * The address registered under {@code name}, empty when none is; fails when no hub could be
         * asked. Cancelling it gives its request back.
         */
        CompletableFuture<Optional<VirtualSocketAddress>> lookup(String name, Duration within);
    }

    /** What a name turned out to be. */
    sealed interface Answer permits Registered, Resolved {}

    /** A node registered under the name at the hub network. */
    record Registered(NodeIdentity node) implements Answer {}

    /** DNS's addresses for the name, in the resolver's order. */
    record Resolved(List<InetAddress> addresses) implements Answer {}

    private final Dns dns;
    private final HubNames hub;
    private final Duration hubTimeout;
    private final ExecutorService dnsThreads;
    private final ConcurrentHashMap<String, CompletableFuture<List<InetAddress>>> queriesInFlight =
            new ConcurrentHashMap<>();

    /** @param dnsThreads makes the threads that wait for the resolver (daemons) */
    HostNameResolver(Dns dns, HubNames hub, Duration hubTimeout, ThreadFactory dnsThreads) {
        this.dns = dns;
        this.hub = hub;
        this.hubTimeout = hubTimeout;
        this.dnsThreads = Executors.newCachedThreadPool(dnsThreads);
    }

    /**
     * Asks DNS and the hub network for {@code name} and waits for the answer that counts, until
     * {@code deadline}.
     *
     * @throws UnknownHostException neither knows the name
     * @throws SocketTimeoutException no answer that counts came before the deadline
     * @throws SocketException the connect was cancelled (its socket closed)
     */
    Answer resolve(String name, Deadline deadline, Cancellation cancellation) throws IOException {
        long hubWithin = Math.min(deadline.remainingNanos(), hubTimeout.toNanos());
        CompletableFuture<List<InetAddress>> fromDns = askDns(name);
        CompletableFuture<Optional<VirtualSocketAddress>> fromHub = hubWithin > 0
                ? hub.lookup(name, Duration.ofNanos(hubWithin))
                : CompletableFuture.failedFuture(new SocketTimeoutException("no time left to ask the hub network"));
        CompletableFuture<Answer> decided = new CompletableFuture<>();
        fromHub.whenComplete((registered, failure) -> {
            if (registered != null && registered.isPresent()) {
                decided.complete(new Registered(registered.get().node()));
                return;
            }
            String hubSays = failure == null
                    ? "no live node holds this name at the hub network"
                    : "the hub network could not be asked for this name (hub link " + hub.linkStatus() + ")";
            fromDns.whenComplete((addresses, dnsFailure) -> {
                if (addresses != null) {
                    decided.complete(new Resolved(addresses));
                } else {
                    decided.completeExceptionally(unknown(name, hubSays, dnsFailure));
                }
            });
        });
        fromDns.thenAccept(addresses -> {
            if (!hub.linked()) {
                decided.complete(new Resolved(addresses)); // no waiting for the link for a name DNS knows
            }
        });
        // Once decided, a lookup still waiting (for the link, say) gives its request slot back at once.
        decided.whenComplete((answer, failure) -> fromHub.cancel(false));
        cancellation.onCancel(() -> decided.cancel(false));
        try {
            return decided.get(Math.max(0, deadline.remainingNanos()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while resolving '" + name + "'");
        } catch (CancellationException e) {
            throw new SocketException("Socket closed");
        } catch (TimeoutException e) {
            String hubSaid = hubState(fromHub); // before cancelling, which would make it look done
            decided.cancel(false);
            throw new SocketTimeoutException(
                    "connect timed out resolving '" + name + "': " + hubSaid + ", and DNS has not answered");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof IOException io) {
                throw io;
            }
            throw new IOException("resolving '" + name + "' failed: " + cause, cause);
        }
    }

    /** What the hub network has said so far, for a timeout's message. */
    private String hubState(CompletableFuture<Optional<VirtualSocketAddress>> fromHub) {
        if (!fromHub.isDone()) {
            return "the hub network has not answered (hub link " + hub.linkStatus() + ")";
        }
        return fromHub.isCompletedExceptionally()
                ? "the hub network could not be asked (hub link " + hub.linkStatus() + ")"
                : "the hub network does not hold it";
    }

    private static UnknownHostException unknown(String name, String hubSays, Throwable dnsFailure) {
        Throwable cause = dnsFailure instanceof CompletionException && dnsFailure.getCause() != null
                ? dnsFailure.getCause()
                : dnsFailure;
        String dnsSays = cause instanceof UnknownHostException
                ? "DNS does not know it either (" + cause.getMessage() + ")"
                : "DNS failed: " + cause;
        UnknownHostException both = new UnknownHostException(name + ": " + hubSays + ", and " + dnsSays);
        both.initCause(cause);
        return both;
    }

    /** Starts a DNS query for {@code host}, or joins the one already under way. Callers only listen to the future. */
    private CompletableFuture<List<InetAddress>> askDns(String host) {
        CompletableFuture<List<InetAddress>> fresh = new CompletableFuture<>();
        CompletableFuture<List<InetAddress>> running = queriesInFlight.putIfAbsent(host, fresh);
        if (running != null) {
            return running;
        }
        try {
            dnsThreads.execute(() -> {
                List<InetAddress> addresses = null;
                Exception failure = null;
                try {
                    addresses = dns.lookup(host);
                } catch (UnknownHostException | RuntimeException e) {
                    failure = e;
                }
                // Out of the table before anyone hears the answer: a connect that comes after it asks afresh.
                queriesInFlight.remove(host, fresh);
                if (failure == null) {
                    fresh.complete(addresses);
                } else {
                    fresh.completeExceptionally(failure);
                }
            });
        } catch (RejectedExecutionException e) {
            queriesInFlight.remove(host, fresh);
            fresh.completeExceptionally(new SocketException("the Traverse node is closed"));
        }
        return fresh;
    }

    @Override
    public void close() {
        dnsThreads.shutdownNow(); // a thread blocked in the resolver ends when it answers; nobody waits for it
    }
}
