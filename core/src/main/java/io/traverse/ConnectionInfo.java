package io.traverse;

import java.time.Duration;

/**
 * How a connection was made; fixed once the socket is handed out. For live byte counts see
 * {@link Traverse#connectionStatistics(java.net.Socket)}.
 *
 * @param target the virtual address connected to; for an accepted connection, this node's own
 *        virtual address that the peer connected to
 * @param module the module that made the connection ({@code direct}, {@code reverse}, {@code routed}, …)
 * @param setupTime from the start of setup until the socket was usable, as the connecting side
 *        measured it; {@link Duration#ZERO} for an accepted connection (the acceptor does not see
 *        the setup start)
 * @param cachedModule whether the per-hub cache picked the module first (false when accepted)
 * @param hubsTraversed hubs between the two nodes: 0 for a kernel socket (direct, reverse,
 *        splice), 1 or more for a connection relayed by hubs (learned from the hop count of the
 *        connection's ACCEPT by the opener and of its OPEN by the acceptor)
 * @param accepted true for a connection this node accepted, false for one it connected
 * @param protection what Traverse does to the bytes between the two nodes: {@link Protection#SEALED}
 *        for a relayed connection encrypted end to end, {@link Protection#NONE} otherwise
 */
public record ConnectionInfo(
        VirtualSocketAddress target,
        String module,
        Duration setupTime,
        boolean cachedModule,
        int hubsTraversed,
        boolean accepted,
        Protection protection) {}
