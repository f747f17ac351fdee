package io.traverse.splice;

import io.traverse.SideChannelHandler;
import io.traverse.identity.NodeId;
import io.traverse.identity.NodeIdentity;
import io.traverse.protocol.Deadline;
import io.traverse.protocol.HandshakeProof;
import io.traverse.protocol.IdentityHandshake;
import io.traverse.protocol.ProtocolException;
import io.traverse.security.PeerSessions;
import io.traverse.spi.AttemptFailedException;
import io.traverse.spi.InboundConnections;
import io.traverse.spi.ModuleContext;
import io.traverse.splice.SpliceMessages.Answer;
import io.traverse.splice.SpliceMessages.Status;
import java.io.IOException;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The target's side: answers "splice with me" requests. Learns its own public endpoint (on the
 * module's threads, never the side channel's few handler threads), starts its rounds
 * ({@link SpliceSchedule}) and answers READY with it and the fire delay once its first SYN is out, then answers the identity handshake on the
 * spliced connection as its listener would and queues it for the virtual port's server socket.
 */
final class SpliceService implements SideChannelHandler {
    private static final Logger log = LoggerFactory.getLogger(SpliceService.class);

    /** How long the answer waits at most for this side's first SYN to go out. */
    static final long FIRST_SYN_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    private final ModuleContext context;
    private final SpliceEndpoints endpoints;
    private final Executor splices;
    private final LowTtlSyns lowTtlSyns;

    SpliceService(ModuleContext context, SpliceEndpoints endpoints, Executor splices, LowTtlSyns lowTtlSyns) {
        this.context = context;
        this.endpoints = endpoints;
        this.splices = splices;
        this.lowTtlSyns = lowTtlSyns;
    }

    @Override
    public byte[] answer(NodeId sender, byte[] request) throws Exception {
        return answerLater(sender, request).get();
    }

    @Override
    public CompletableFuture<byte[]> answerLater(NodeId sender, byte[] bytes) {
        SpliceMessages.Request request;
        try {
            request = SpliceMessages.decodeRequest(bytes);
        } catch (ProtocolException e) {
            return answered(Answer.refused(Status.BAD_REQUEST, e.getMessage()));
        }
        try {
            context.inboundConnections().checkListening(request.virtualPort());
        } catch (AttemptFailedException e) {
            return answered(Answer.refused(Status.TARGET_ANSWER, e.getMessage()));
        }
        try {
            long received = System.nanoTime();
            return CompletableFuture.supplyAsync(() -> prepare(sender, request, received), splices)
                    .thenApply(SpliceMessages::encode);
        } catch (RejectedExecutionException e) {
            return answered(Answer.refused(
                    Status.UNSPLICEABLE, "node " + self() + " is splicing as many connections as it will at once"));
        }
    }

    private static CompletableFuture<byte[]> answered(Answer answer) {
        return CompletableFuture.completedFuture(SpliceMessages.encode(answer));
    }

    /** Learns the endpoint, and starts the SYNs for the moment the answer reaches the source. */
    private Answer prepare(NodeId sender, SpliceMessages.Request request, long received) {
        long millis = Math.max(
                1,
                Math.min(request.millisLeft(), context.config().connectTimeout().toMillis()));
        Deadline deadline = Deadline.after(Duration.ofMillis(millis));
        SpliceEndpoints.Endpoint mine;
        try {
            mine = endpoints.next(deadline);
        } catch (IOException e) {
            log.debug("Cannot splice with node {}: {}", sender, e.getMessage());
            return Answer.refused(Status.UNSPLICEABLE, "node " + self() + " cannot splice: " + e.getMessage());
        }
        long delayNanos = SpliceSchedule.fireDelayNanos(
                TimeUnit.MICROSECONDS.toNanos(request.hubRttMicros()), mine.hubRttNanos());
        long now = System.nanoTime();
        long end = now + Math.min(TimeUnit.MILLISECONDS.toNanos(millis), SpliceModule.SYN_WINDOW_NANOS);
        List<SimultaneousOpen.Round> rounds = SpliceSchedule.rounds(
                endpoints.bindAddress(),
                mine.localPorts(),
                request.endpoint(),
                now,
                false,
                delayNanos,
                lowTtlSyns != null);
        SimultaneousOpen open = new SimultaneousOpen(rounds, end, splices, lowTtlSyns);
        open.keepConnectingAfterWinner();
        try {
            splices.execute(() -> spliceAndServe(sender, request, open));
        } catch (RejectedExecutionException e) {
            return Answer.refused(
                    Status.UNSPLICEABLE, "node " + self() + " is splicing as many connections as it will at once");
        }
        if (rounds.size() > 1) {
            open.awaitFirstSyn(FIRST_SYN_WAIT_NANOS); // round 1 is ours to fire first: out before the answer
        }
        long answered = System.nanoTime();
        log.debug(
                "Splice request from node {}: answering READY {} us after it arrived ({} us for the first SYN), leading by {} us "
                        + "in the source's rounds",
                sender,
                (answered - received) / 1000,
                (answered - now) / 1000,
                delayNanos / 1000);
        return Answer.ready(
                TimeUnit.NANOSECONDS.toMicros(delayNanos),
                TimeUnit.NANOSECONDS.toMicros(answered - received),
                mine.toMessage());
    }

    private void spliceAndServe(NodeId sender, SpliceMessages.Request request, SimultaneousOpen open) {
        open.onLateConnection(late -> {
            try {
                splices.execute(() -> serve(sender, request, late, open));
            } catch (RejectedExecutionException e) {
                SimultaneousOpen.closeQuietly(late);
            }
        });
        Socket socket;
        try {
            socket = open.run();
        } catch (IOException e) {
            log.debug("Splice with node {} failed: {}", sender, e.getMessage());
            return;
        }
        serve(sender, request, socket, open);
    }

    /**
     * Answers the handshake on one spliced connection. Two rounds may both connect; the source
     * sends its handshake on the one it took and closes the other, which ends here at EOF.
     */
    private void serve(NodeId sender, SpliceMessages.Request request, Socket socket, SimultaneousOpen open) {
        boolean delivered = false;
        try {
            socket.setTcpNoDelay(true);
            socket.setSoTimeout(
                    (int) Math.max(1, context.config().handshakeTimeout().toMillis()));
            NodeIdentity self = context.localIdentity();
            SpliceHandshake.Checked checked =
                    SpliceHandshake.readRequest(socket, self, sender, request.virtualPort(), request.probe());
            open.cancel(); // the source took this one: no other connection of this splice is wanted
            if (checked.answer() != IdentityHandshake.Answer.ACCEPT) {
                SpliceHandshake.answer(socket, self, checked.answer(), checked.reason());
                return;
            }
            if (request.probe()) {
                SpliceHandshake.answer(socket, self, IdentityHandshake.Answer.ACCEPT, "");
                log.debug("Spliced with node {} for a probe of virtual port {}", sender, request.virtualPort());
                return;
            }
            // Asked for, or imposed by this node (the sender is named: the side channel authenticated it).
            boolean tls = checked.request().tls() || context.config().encryptKernelSockets();
            if (tls && context.kernelTls().isEmpty()) {
                SpliceHandshake.answer(
                        socket, self, IdentityHandshake.Answer.REFUSED, "this node cannot run TLS on kernel sockets");
                return;
            }
            HandshakeProof.Accepted proof = null;
            PeerSessions sessions = context.peerSessions().orElse(null);
            if (sessions != null) {
                Object answered = SpliceHandshake.answerProof(sessions, sender, checked.request());
                if (answered instanceof SpliceHandshake.Checked refused) {
                    if (refused.answer() == IdentityHandshake.Answer.REFUSED
                            && checked.request().provesKey()) {
                        log.warn("Refused a spliced connection stating node {}: {}", sender, refused.reason());
                    }
                    SpliceHandshake.answer(socket, self, refused.answer(), refused.reason());
                    return;
                }
                proof = (HandshakeProof.Accepted) answered;
            }
            InboundConnections.PortSlot slot;
            try {
                slot = context.inboundConnections().reserve(request.virtualPort());
            } catch (AttemptFailedException e) {
                SpliceHandshake.answer(socket, self, IdentityHandshake.Answer.OVERLOAD, e.getMessage());
                return;
            }
            try {
                if (proof != null) {
                    SpliceHandshake.acceptWithProof(socket, proof, tls);
                } else {
                    SpliceHandshake.accept(socket, self, tls);
                }
                if (checked.request().holdUntilConfirmed() && !SpliceHandshake.awaitConfirm(socket)) {
                    slot.release(); // another attempt of the source's won: nobody sees this one
                    log.debug("Spliced connection from node {} closed unconfirmed: another attempt won", sender);
                    return;
                }
                if (proof != null && proof.full() && !SpliceHandshake.awaitFinished(socket, proof)) {
                    slot.release();
                    log.warn("Closed a spliced connection stating node {}: its key proof (Finished) is wrong", sender);
                    return;
                }
                socket.setSoTimeout(0);
            } catch (IOException e) {
                slot.release();
                throw e;
            }
            if (tls) {
                context.kernelTls().get().agreed(socket, sender); // wrapped (TLS server) on its way to the backlog
            }
            slot.deliver(socket, SpliceModuleProvider.NAME);
            delivered = true;
            log.debug(
                    "Spliced with node {} for virtual port {} (round {}, {} SYN tries)",
                    sender,
                    request.virtualPort(),
                    open.roundOf(socket),
                    open.tries());
        } catch (IOException e) {
            log.debug("Spliced connection from node {} failed its handshake: {}", sender, e.getMessage());
        } finally {
            if (!delivered) {
                SimultaneousOpen.closeQuietly(socket);
            }
        }
    }

    private String self() {
        return context.localIdentity().id().map(NodeId::toString).orElse("?");
    }
}
