package io.traverse.spi;

import io.traverse.identity.NodeIdentity;

/**
 * One request to reach virtual port {@code virtualPort} of node {@code target} before
 * {@code deadline}. A {@code probe} only finds out whether a module gets through: the target
 * answers as it would, but no connection reaches its application (upgrade probes, paper §3.3.4);
 * a module that cannot probe without one refuses to plan it.
 */
public record ConnectRequest(NodeIdentity target, int virtualPort, Deadline deadline, ConnectOptions options, boolean probe) {
    public ConnectRequest(NodeIdentity target, int virtualPort, Deadline deadline, ConnectOptions options) {
        this(target, virtualPort, deadline, options, false);
    }
}
