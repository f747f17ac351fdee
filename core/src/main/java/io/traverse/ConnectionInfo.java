package io.traverse;

import java.time.Duration;

/**
 * How a connection to a virtual address was made: the module that won, the time from the start of
 * setup until the socket was usable, and whether the per-hub cache picked that module first.
 */
public record ConnectionInfo(VirtualSocketAddress target, String module, Duration setupTime, boolean cachedModule) {
}
