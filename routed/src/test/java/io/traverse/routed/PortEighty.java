package io.traverse.routed;

import io.traverse.identity.NodeId;
import io.traverse.spi.AttemptFailedException;
import io.traverse.spi.FailureScope;
import io.traverse.spi.InboundConnections;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/** A node's virtual ports for tests: port 80 listens, and what it accepts is collected. */
final class PortEighty implements InboundConnections {
    final List<Socket> accepted = new CopyOnWriteArrayList<>();
    /** Backlog slots given back (a held connection that was never confirmed). */
    final AtomicInteger released = new AtomicInteger();

    @Override
    public Expectation expect(NodeId from, int virtualPort) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void checkListening(int virtualPort) throws AttemptFailedException {
        if (virtualPort != 80) {
            throw new AttemptFailedException(FailureScope.TARGET, "nothing listens on virtual port " + virtualPort);
        }
    }

    @Override
    public PortSlot reserve(int virtualPort) {
        return new PortSlot() {
            @Override
            public void deliver(Socket socket, String module) {
                accepted.add(socket);
            }

            @Override
            public void release() {
                released.incrementAndGet();
            }
        };
    }
}
