package io.traverse.spi;

import io.traverse.identity.NodeIdentity;

/** One request to reach virtual port {@code virtualPort} of node {@code target} before {@code deadline}. */
public record ConnectRequest(NodeIdentity target, int virtualPort, Deadline deadline, ConnectOptions options) {
}
