package io.traverse.node;

import io.traverse.connect.KernelTls;
import io.traverse.identity.NodeId;
import io.traverse.listen.AcceptQueue;
import io.traverse.listen.ReverseRendezvous;
import io.traverse.listen.VirtualPortTable;
import io.traverse.spi.AttemptFailedException;
import io.traverse.spi.FailureScope;
import io.traverse.spi.InboundConnections;
import java.net.Socket;

/**
 * The node's virtual ports and its dial-back rendezvous, as the modules that bring connections
 * in use them. A delivered connection is recorded with the module that made it, which
 * {@code Traverse.connectionInfo} reports for the accepted socket.
 */
final class NodeInboundConnections implements InboundConnections {
    private final ReverseRendezvous rendezvous;
    private final VirtualPortTable ports;
    private final SocketRecords<String> deliveredBy;
    private final KernelTls kernelTls;

    NodeInboundConnections(
            ReverseRendezvous rendezvous,
            VirtualPortTable ports,
            SocketRecords<String> deliveredBy,
            KernelTls kernelTls) {
        this.kernelTls = kernelTls;
        this.rendezvous = rendezvous;
        this.ports = ports;
        this.deliveredBy = deliveredBy;
    }

    @Override
    public Expectation expect(NodeId from, int virtualPort) {
        return rendezvous.expect(from, virtualPort);
    }

    @Override
    public void checkListening(int virtualPort) throws AttemptFailedException {
        if (bound(virtualPort).isClosed()) {
            throw nothingListens(virtualPort);
        }
    }

    @Override
    public PortSlot reserve(int virtualPort) throws AttemptFailedException {
        AcceptQueue queue = bound(virtualPort);
        if (!queue.tryReserve()) {
            throw new AttemptFailedException(
                    FailureScope.TARGET,
                    queue.isClosed()
                            ? "virtual port " + virtualPort + " is closing"
                            : "the accept backlog of virtual port " + virtualPort + " is full (" + queue.capacity()
                                    + ")");
        }
        return new PortSlot() {
            @Override
            public void deliver(Socket socket, String module) {
                // Wrapped in TLS first (on a thread of its own) when its handshake agreed on it.
                kernelTls.accepting(
                        socket,
                        delivered -> {
                            deliveredBy.put(delivered, module);
                            queue.deliver(delivered);
                        },
                        queue::release);
            }

            @Override
            public void release() {
                queue.release();
            }
        };
    }

    /** The backlog of a bound virtual port (closing or not). */
    private AcceptQueue bound(int virtualPort) throws AttemptFailedException {
        AcceptQueue queue = ports.lookup(virtualPort);
        if (queue == null) {
            throw nothingListens(virtualPort);
        }
        return queue;
    }

    private static AttemptFailedException nothingListens(int virtualPort) {
        return new AttemptFailedException(FailureScope.TARGET, "nothing listens on virtual port " + virtualPort);
    }
}
