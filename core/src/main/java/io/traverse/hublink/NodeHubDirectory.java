package io.traverse.hublink;

import io.traverse.HubDirectory;
import io.traverse.VirtualSocketAddress;
import io.traverse.hublink.transport.LinkEventLoops;
import io.traverse.identity.NodeId;
import io.traverse.identity.NodeIdentity;
import io.traverse.identity.RegisteredName;
import io.traverse.protocol.ProtocolException;
import io.traverse.wire.LinkMessage;
import io.traverse.wire.Lookup;
import io.traverse.wire.LookupKind;
import io.traverse.wire.LookupResult;
import io.traverse.wire.ResultStatus;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link HubDirectory} through this node's hub link: one LOOKUP per question, entries parsed from
 * the text formats of docs/protocol.md. An entry that does not parse is skipped and logged, never
 * fatal: a newer hub may add fields at the end.
 */
public final class NodeHubDirectory implements HubDirectory {
    private static final Logger log = LoggerFactory.getLogger(NodeHubDirectory.class);
    private final HubLink link;
    private final Duration timeout;

    NodeHubDirectory(HubLink link, Duration timeout) {
        this.link = link;
        this.timeout = timeout;
    }

    @Override
    public CompletableFuture<Optional<VirtualSocketAddress>> resolveName(String name) {
        return resolveName(name, timeout);
    }

    /** {@link #resolveName(String)} within the given time (a connect's deadline). */
    public CompletableFuture<Optional<VirtualSocketAddress>> resolveName(String name, Duration within) {
        String normalized = RegisteredName.normalize(name);
        CompletableFuture<LookupResult> asked = lookup(LookupKind.NAME, normalized, within);
        return cancelReaches(asked, offLoop(asked.thenApply(r -> {
            if (r.status() == ResultStatus.NOT_FOUND || r.entries().isEmpty()) {
                return Optional.<VirtualSocketAddress>empty();
            }
            try {
                return Optional.of(VirtualSocketAddress.parse(r.entries().get(0)));
            } catch (IllegalArgumentException e) {
                throw new CompletionException(new ProtocolException("the hub answered name '" + normalized
                        + "' with a malformed virtual address: " + e.getMessage()));
            }
        })));
    }

    /**
     * Makes cancelling {@code derived} cancel {@code upstream} too: a caller that stops waiting (DNS
     * answered a name first) gives back the request's slot among the link's pending requests at
     * once, instead of when the hub answers or the request times out.
     */
    static <T> CompletableFuture<T> cancelReaches(CompletableFuture<?> upstream, CompletableFuture<T> derived) {
        derived.whenComplete((v, e) -> {
            if (e instanceof java.util.concurrent.CancellationException) {
                upstream.cancel(false);
            }
        });
        return derived;
    }

    @Override
    public CompletableFuture<Optional<NodeLocation>> locateNode(NodeId node) {
        return offLoop(lookup(LookupKind.NODE, node.toString(), timeout).thenApply(r -> {
            if (r.status() == ResultStatus.NOT_FOUND || r.entries().isEmpty()) {
                return Optional.<NodeLocation>empty();
            }
            return Optional.of(new NodeLocation(
                    NodeId.of(r.entries().get(0)),
                    HubLink.linkAddresses(r.entries().subList(1, r.entries().size()))));
        }));
    }

    /** {@code hubId name… hops address,address} (or {@code -} for no address). */
    @Override
    public CompletableFuture<List<Hub>> hubs() {
        return offLoop(hubList());
    }

    /** {@code hubId hubId}. */
    @Override
    public CompletableFuture<List<Link>> links() {
        return offLoop(listing(LookupKind.LINKS, e -> {
            String[] f = fields(e, 2);
            return new Link(NodeId.of(f[0]), NodeId.of(f[1]));
        }));
    }

    /** {@code nodeId hubId identityText}. */
    @Override
    public CompletableFuture<List<Node>> nodes() {
        return offLoop(listing(LookupKind.NODES, e -> {
            String[] f = fields(e, 3);
            return new Node(NodeId.of(f[0]), NodeId.of(f[1]), NodeIdentity.parse(f[2]));
        }));
    }

    /** {@code name nodeId virtualPort hubId}. */
    @Override
    public CompletableFuture<List<Name>> names() {
        return offLoop(listing(LookupKind.NAMES, e -> {
            String[] f = fields(e, 4);
            return new Name(f[0], NodeId.of(f[1]), Integer.parseInt(f[2]), NodeId.of(f[3]));
        }));
    }

    /** {@link #hubs()} completing on the link's loop, for the link itself. */
    CompletableFuture<List<Hub>> hubList() {
        // Whoever asks, the answer also refreshes the link's failover candidates.
        return listing(LookupKind.HUBS, NodeHubDirectory::hub).whenComplete((hubs, failure) -> {
            if (hubs != null) {
                link.learned(hubs);
            }
        });
    }

    private static Hub hub(String entry) {
        String[] f = entry.trim().split(" +");
        if (f.length < 4) {
            throw new IllegalArgumentException("expected 'id name hops addresses'");
        }
        String addresses = f[f.length - 1];
        String name = String.join(" ", Arrays.copyOfRange(f, 1, f.length - 2));
        return new Hub(
                NodeId.of(f[0]),
                name,
                Integer.parseInt(f[f.length - 2]),
                addresses.equals("-") ? List.of() : HubLink.linkAddresses(List.of(addresses.split(","))));
    }

    /** The first {@code n} space-separated fields (later fields are a newer hub's additions). */
    private static String[] fields(String entry, int n) {
        String[] f = entry.trim().split(" +");
        if (f.length < n) {
            throw new IllegalArgumentException("expected " + n + " fields");
        }
        return f;
    }

    private <T> CompletableFuture<List<T>> listing(LookupKind kind, Function<String, T> parser) {
        return lookup(kind, "", timeout).thenApply(r -> {
            List<T> out = new ArrayList<>(r.entries().size());
            for (String entry : r.entries()) {
                try {
                    out.add(parser.apply(entry));
                } catch (RuntimeException e) {
                    log.debug("Skipping {} entry '{}': {}", kind, entry, e.getMessage());
                }
            }
            return out;
        });
    }

    private CompletableFuture<LookupResult> lookup(LookupKind kind, String argument, Duration within) {
        String what = "lookup " + kind + (argument.isEmpty() ? "" : " '" + argument + "'");
        CompletableFuture<LinkMessage> exchanged = link.exchange(id -> new Lookup(id, kind, argument), within, what);
        return cancelReaches(exchanged, exchanged.thenApply(answer -> {
            if (!(answer instanceof LookupResult r)) {
                throw new CompletionException(new ProtocolException(what + ": the hub answered " + answer.type()));
            }
            if (r.status() != ResultStatus.OK
                    && r.status() != ResultStatus.NOT_FOUND
                    && r.status() != ResultStatus.PARTIAL) {
                // A refusal by a limit (LIMIT) says which, in its one entry.
                String why = r.entries().isEmpty() ? "" : " (" + r.entries().get(0) + ")";
                throw new CompletionException(new IOException(what + " failed at the hub: " + r.status() + why));
            }
            return r;
        }));
    }

    /** Callers may block in dependent stages: complete them off the event loop. */
    private static <T> CompletableFuture<T> offLoop(CompletableFuture<T> f) {
        return f.thenApplyAsync(x -> x, LinkEventLoops.completions());
    }
}
