package io.traverse.spi;

import io.traverse.identity.NodeIdentity;
import io.traverse.protocol.Deadline;

/**
 * One request to reach virtual port {@code virtualPort} of node {@code target} before
 * {@code deadline}. A {@code probe} only finds out whether a module gets through: the target
 * answers as it would, but no connection reaches its application (upgrade probes, paper §3.3.4);
 * a module that cannot probe without one refuses to plan it. {@code rivals} tells whether other
 * attempts of the same connect run (one per connect, shared by all its attempts).
 */
public record ConnectRequest(
        NodeIdentity target, int virtualPort, Deadline deadline, ConnectOptions options, boolean probe, Rivals rivals) {
    public ConnectRequest(NodeIdentity target, int virtualPort, Deadline deadline, ConnectOptions options) {
        this(target, virtualPort, deadline, options, false);
    }

    public ConnectRequest(
            NodeIdentity target, int virtualPort, Deadline deadline, ConnectOptions options, boolean probe) {
        this(target, virtualPort, deadline, options, probe, new Rivals());
    }

    /**
     * True when the target should hold the connection until {@link ConnectionAttempt#confirm()}:
     * a rival attempt runs, and this is a connection for the application (a probe reaches none).
     */
    public boolean holdUntilConfirmed() {
        return !probe && rivals.present();
    }
}
