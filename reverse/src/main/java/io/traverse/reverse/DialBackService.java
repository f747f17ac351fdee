package io.traverse.reverse;

import io.traverse.SideChannelHandler;
import io.traverse.identity.NodeId;
import io.traverse.identity.NodeIdentity;
import io.traverse.protocol.Deadline;
import io.traverse.protocol.DialBackProof;
import io.traverse.protocol.IdentityHandshake;
import io.traverse.protocol.ProtocolException;
import io.traverse.reverse.DialBackMessages.Answer;
import io.traverse.reverse.DialBackMessages.Status;
import io.traverse.spi.AttemptFailedException;
import io.traverse.spi.ConnectOptions;
import io.traverse.spi.ConnectRequest;
import io.traverse.spi.FailureScope;
import io.traverse.spi.InboundConnections;
import io.traverse.spi.ModuleContext;
import java.io.IOException;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The target's side: answers "dial me back" requests. The request is checked on the hub link's
 * thread as it arrives ({@link #answersAtOnce}: one thread hand-off less per reverse connection);
 * the dial itself (at most the asking node's time left and this node's connect timeout) runs on
 * the module's own dial-back threads, so that dial-backs to unreachable nodes hold up neither the
 * link nor the few handler threads every service shares.
 */
final class DialBackService implements SideChannelHandler {
    private static final Logger log = LoggerFactory.getLogger(DialBackService.class);

    /** Addresses of one identity this node dials back at most: a request cannot make it scan a network. */
    static final int MAX_ADDRESSES = 8;

    private final ModuleContext context;
    private final Executor dialBacks;
    /** Dial back only to prove the path: the connection is closed, not handed to the application. */
    private final boolean probe;

    DialBackService(ModuleContext context, Executor dialBacks, boolean probe) {
        this.context = context;
        this.dialBacks = dialBacks;
        this.probe = probe;
    }

    @Override
    public byte[] answer(NodeId sender, byte[] request) throws Exception {
        return answerLater(sender, request).get();
    }

    /** Checks the request and hands the dial to the dial-back threads: never blocks. */
    @Override
    public boolean answersAtOnce() {
        return true;
    }

    @Override
    public CompletableFuture<byte[]> answerLater(NodeId sender, byte[] request) {
        return handle(sender, request).thenApply(DialBackMessages::encode);
    }

    private CompletableFuture<Answer> handle(NodeId sender, byte[] bytes) {
        DialBackMessages.Request request;
        NodeIdentity dialler;
        try {
            request = DialBackMessages.decodeRequest(bytes);
            dialler = NodeIdentity.parse(request.diallerIdentity());
        } catch (ProtocolException | IllegalArgumentException e) {
            return CompletableFuture.completedFuture(new Answer(Status.BAD_REQUEST, e.getMessage()));
        }
        if (dialler.id().isEmpty() || !dialler.id().get().equals(sender)) {
            return CompletableFuture.completedFuture(new Answer(
                    Status.BAD_REQUEST,
                    "the identity to dial is node "
                            + dialler.id().map(NodeId::toString).orElse("(none)") + ", but the request came from node "
                            + sender));
        }
        try {
            context.inboundConnections().checkListening(request.virtualPort());
        } catch (AttemptFailedException e) {
            return CompletableFuture.completedFuture(new Answer(Status.TARGET_ANSWER, e.getMessage()));
        }
        if (dialler.directAddresses().size() > MAX_ADDRESSES) {
            return CompletableFuture.completedFuture(new Answer(
                    Status.BAD_REQUEST,
                    "an identity with " + dialler.directAddresses().size() + " addresses; this node dials back at most "
                            + MAX_ADDRESSES));
        }
        try {
            CompletableFuture<Answer> answer = new CompletableFuture<>();
            dialBacks.execute(() -> {
                try {
                    dialBack(sender, request, dialler, answer);
                } catch (RuntimeException e) {
                    answer.completeExceptionally(e);
                }
            });
            return answer;
        } catch (RejectedExecutionException e) {
            return CompletableFuture.completedFuture(new Answer(
                    Status.UNREACHABLE,
                    "node " + self() + " is dialling back as many nodes as it will at once; try again"));
        }
    }

    private void dialBack(
            NodeId sender, DialBackMessages.Request request, NodeIdentity dialler, CompletableFuture<Answer> answer) {
        long millis = Math.max(
                1,
                Math.min(request.millisLeft(), context.config().connectTimeout().toMillis()));
        ConnectRequest back = new ConnectRequest(
                dialler, request.virtualPort(), Deadline.after(Duration.ofMillis(millis)), ConnectOptions.NONE);
        // The backlog slot is taken once a TCP connection to the dialler is up, before the handshake goes out: the
        // handshake's arrival then tells the dialler its connection has a place here, and it need not wait for this
        // answer (version 3). A dial whose TCP connection never comes up holds no slot.
        SlotForDialBack slotHolder = new SlotForDialBack(request.virtualPort());
        Socket socket;
        try {
            // The token stays off the wire: what goes out proves it for this node, the asker and this port only.
            byte[] proof = DialBackProof.of(
                    request.token(), sender, context.localIdentity().id().orElseThrow(), request.virtualPort());
            // Also through this node's SSH tunnels, if its direct module has any (a node only SSH reaches).
            socket = context.handshakeDialer()
                    .dialBack(back, proof, slotHolder::take)
                    .connect();
        } catch (IOException e) {
            slotHolder.giveBack(); // and no address still connecting may take one now
            if (FailureScope.of(e) == FailureScope.TARGET) { // no room in the backlog, or the port closed meanwhile
                answer.complete(new Answer(Status.TARGET_ANSWER, e.getMessage()));
                return;
            }
            log.debug("Could not dial node {} back: {}", sender, e.getMessage());
            answer.complete(
                    new Answer(Status.UNREACHABLE, "node " + self() + " could not dial back: " + e.getMessage()));
            return;
        }
        InboundConnections.PortSlot slot = slotHolder.taken();
        if (slot == null) { // cannot happen: the handshake went out after takeSlot
            ReverseModule.closeQuietly(socket);
            answer.complete(new Answer(Status.UNREACHABLE, "node " + self() + " dialled back without a backlog slot"));
            return;
        }
        if (probe) {
            slot.release();
            ReverseModule.closeQuietly(socket);
            log.debug("Dialled node {} back for a probe of virtual port {}", sender, request.virtualPort());
            answer.complete(new Answer(Status.CONNECTED, ""));
            return;
        }
        answer.complete(new Answer(Status.CONNECTED, ""));
        if (!request.held()) { // the dialler's connect had no rival: this connection is its answer
            slot.deliver(socket, ReverseModuleProvider.NAME);
            log.debug("Dialled node {} back for virtual port {} (unheld)", sender, request.virtualPort());
            return;
        }
        // Held until the dialler confirms: it may still lose its race to another module, and then
        // closes this connection, which nobody here must see.
        boolean delivered = false;
        try {
            socket.setSoTimeout(
                    (int) Math.max(1, context.config().handshakeTimeout().toMillis()));
            int confirm = socket.getInputStream().read();
            if (confirm == IdentityHandshake.CONFIRM) {
                socket.setSoTimeout(0);
                slot.deliver(socket, ReverseModuleProvider.NAME);
                delivered = true;
                log.debug("Dialled node {} back for virtual port {}", sender, request.virtualPort());
            } else {
                log.debug(
                        "Node {} closed its dial-back for virtual port {} unconfirmed ({}): another attempt won",
                        sender,
                        request.virtualPort(),
                        confirm);
            }
        } catch (IOException e) {
            log.debug(
                    "Node {} did not confirm its dial-back for virtual port {}: {}",
                    sender,
                    request.virtualPort(),
                    e.getMessage());
        } finally {
            if (!delivered) {
                slot.release();
                ReverseModule.closeQuietly(socket);
            }
        }
    }

    /**
     * The backlog slot of one dial-back: taken by the first of the dialler's addresses whose TCP
     * connection comes up (the staggered addresses share it), given back if the dial fails. Once
     * given back, no address still connecting may take one: its handshake would tell the dialler of a
     * slot that this node no longer holds for it.
     */
    private final class SlotForDialBack {
        private final int virtualPort;
        private InboundConnections.PortSlot slot;
        private boolean over;

        SlotForDialBack(int virtualPort) {
            this.virtualPort = virtualPort;
        }

        synchronized void take() throws IOException {
            if (over) {
                throw new AttemptFailedException(FailureScope.PATH, "the dial-back is over");
            }
            if (slot == null) {
                slot = context.inboundConnections().reserve(virtualPort);
            }
        }

        synchronized InboundConnections.PortSlot taken() {
            return slot;
        }

        synchronized void giveBack() {
            over = true;
            if (slot != null) {
                slot.release();
                slot = null;
            }
        }
    }

    private String self() {
        return context.localIdentity().id().map(NodeId::toString).orElse("?");
    }
}
