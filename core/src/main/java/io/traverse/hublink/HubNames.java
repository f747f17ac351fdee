package io.traverse.hublink;

import io.traverse.hublink.transport.HubLinkException;
import io.traverse.identity.NodeId;
import io.traverse.wire.NameBind;
import io.traverse.wire.NameRelease;
import io.traverse.wire.Result;
import io.traverse.wire.ResultStatus;
import java.net.BindException;
import java.net.SocketException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The names this node holds at the hub network (name registry): binds them through the
 * link, releases them, and binds them again on every new link so that they survive a failover.
 * A name another node holds, or that a hub keeps for one, is refused with a {@link BindException} naming it.
 */
public final class HubNames {
    private static final Logger log = LoggerFactory.getLogger(HubNames.class);
    private final HubLink link;
    private final Duration timeout;
    private final NameRegistrations names = new NameRegistrations();

    HubNames(HubLink link, Duration timeout) {
        this.link = link;
        this.timeout = timeout;
    }

    /**
     * Registers {@code name} for {@code virtualPort} of this node at the hub network and keeps it
     * registered across hub changes until {@link #release}. Completes when the hub network
     * accepted it; fails with a {@link BindException} if another node holds the name (or a hub keeps
     * it for another node that left lately) or this node has it already, or a {@link SocketException} if no hub can be asked.
     */
    public CompletableFuture<Void> bind(String name, int virtualPort) {
        if (!names.reserve(name, virtualPort)) {
            return CompletableFuture.failedFuture(new BindException(
                    "name '" + name + "' is bound on this node already (to virtual port " + names.portOf(name) + ")"));
        }
        return link.exchange(id -> new NameBind(id, name, virtualPort), timeout, "binding name '" + name + "'")
                .handle((answer, failure) -> {
                    if (failure == null && answer instanceof Result r && r.status() == ResultStatus.OK) {
                        if (!names.confirm(name, virtualPort)) {
                            // released while the binding was on its way: give it up at the hub too
                            releaseAtHub(name);
                        }
                        log.debug("Name '{}' bound to virtual port {}", name, virtualPort);
                        return null;
                    }
                    names.remove(name, virtualPort);
                    if (failure != null) {
                        Throwable cause = HubLinkException.unwrap(failure);
                        throw new CompletionException(
                                cause instanceof SocketException
                                        ? cause
                                        : new SocketException(
                                                "cannot bind name '" + name + "': " + cause.getMessage()));
                    }
                    Result r = (Result) answer;
                    String message = r.message().isEmpty() ? r.status().name() : r.message();
                    throw new CompletionException(
                            r.status() == ResultStatus.NAME_TAKEN
                                    ? new BindException("cannot bind name '" + name + "': it is taken by another node ("
                                            + message + ")")
                                    : new SocketException("cannot bind name '" + name + "': the hub refused it: "
                                            + r.status() + " (" + message + ")"));
                });
    }

    /** Gives a name up (the server socket closed); the hub is told if the link is up. */
    public void release(String name, int virtualPort) {
        if (names.remove(name, virtualPort)) {
            releaseAtHub(name);
        }
    }

    private void releaseAtHub(String name) {
        if (link.isUp()) {
            link.exchange(id -> new NameRelease(id, name), timeout, "releasing name '" + name + "'")
                    .whenComplete((r, e) -> log.debug("Released name '{}': {}", name, e == null ? r : e.getMessage()));
        }
    }

    /** Binds every confirmed name again on a new link (after a failover); called when the link comes up. */
    void bindAgain(NodeId hubId) {
        for (Map.Entry<String, Integer> e : names.confirmed().entrySet()) {
            String name = e.getKey();
            int port = e.getValue();
            link.exchange(id -> new NameBind(id, name, port), timeout, "binding name '" + name + "' again")
                    .whenComplete((answer, failure) -> {
                        if (answer instanceof Result r && r.status() == ResultStatus.OK) {
                            log.debug("Name '{}' bound again at hub {}", name, hubId);
                        } else if (answer instanceof Result r && r.status() == ResultStatus.NAME_TAKEN) {
                            names.remove(name, port);
                            log.error(
                                    "Name '{}' was taken by another node while this node changed hubs: {}; the server socket"
                                            + " on virtual port {} stays reachable by its virtual address only",
                                    name,
                                    r.message(),
                                    port);
                        } else {
                            log.warn(
                                    "Binding name '{}' again at hub {} failed: {}",
                                    name,
                                    hubId,
                                    failure != null
                                            ? HubLinkException.unwrap(failure).getMessage()
                                            : answer);
                        }
                    });
        }
    }
}
