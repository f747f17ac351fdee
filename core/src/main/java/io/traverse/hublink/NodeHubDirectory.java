package io.traverse.hublink;

import io.traverse.HubDirectory;
import io.traverse.VirtualSocketAddress;
import io.traverse.identity.NodeId;
import io.traverse.identity.RegisteredName;
import io.traverse.protocol.ProtocolException;
import io.traverse.wire.Lookup;
import io.traverse.wire.LookupKind;
import io.traverse.wire.LookupResult;
import io.traverse.wire.ResultStatus;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/** {@link HubDirectory} through this node's hub link: one LOOKUP per question. */
public final class NodeHubDirectory implements HubDirectory {
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
        return lookup(LookupKind.NAME, normalized, within).thenApply(r -> {
            if (r.status() == ResultStatus.NOT_FOUND || r.entries().isEmpty()) {
                return Optional.<VirtualSocketAddress>empty();
            }
            try {
                return Optional.of(VirtualSocketAddress.parse(r.entries().get(0)));
            } catch (IllegalArgumentException e) {
                throw new CompletionException(new ProtocolException("the hub answered name '" + normalized
                        + "' with a malformed virtual address: " + e.getMessage()));
            }
        }).thenApplyAsync(x -> x);
    }

    @Override
    public CompletableFuture<Optional<List<String>>> locateNode(NodeId node) {
        return lookup(LookupKind.NODE, node.toString(), timeout)
                .thenApply(r -> r.status() == ResultStatus.NOT_FOUND ? Optional.<List<String>>empty() : Optional.of(r.entries()))
                .thenApplyAsync(x -> x);
    }

    @Override
    public CompletableFuture<List<String>> hubs() {
        return listing(LookupKind.HUBS);
    }

    @Override
    public CompletableFuture<List<String>> links() {
        return listing(LookupKind.LINKS);
    }

    @Override
    public CompletableFuture<List<String>> nodes() {
        return listing(LookupKind.NODES);
    }

    @Override
    public CompletableFuture<List<String>> names() {
        return listing(LookupKind.NAMES);
    }

    /** The link addresses of every hub of the network (for failover); on the link's loop. */
    CompletableFuture<List<InetSocketAddress>> hubLinkAddresses() {
        return lookup(LookupKind.HUBS, "", timeout).thenApply(r -> {
            List<String> tokens = new ArrayList<>();
            for (String entry : r.entries()) {
                for (String token : entry.split("[\\s,]+")) {
                    if (token.indexOf(':') > 0 && token.matches(".*:\\d{1,5}")) {
                        tokens.add(token);
                    }
                }
            }
            return HubLink.linkAddresses(tokens);
        });
    }

    private CompletableFuture<List<String>> listing(LookupKind kind) {
        return lookup(kind, "", timeout).thenApply(LookupResult::entries).thenApplyAsync(x -> x);
    }

    private CompletableFuture<LookupResult> lookup(LookupKind kind, String argument, Duration within) {
        String what = "lookup " + kind + (argument.isEmpty() ? "" : " '" + argument + "'");
        return link.exchange(id -> new Lookup(id, kind, argument), within, what).thenApply(answer -> {
            if (!(answer instanceof LookupResult r)) {
                throw new CompletionException(new ProtocolException(what + ": the hub answered " + answer.type()));
            }
            if (r.status() != ResultStatus.OK && r.status() != ResultStatus.NOT_FOUND && r.status() != ResultStatus.PARTIAL) {
                throw new CompletionException(new java.io.IOException(what + " failed at the hub: " + r.status()));
            }
            return r;
        });
    }
}
