package io.traverse.cli.perf;

/**
 * What {@code traverse perf} measured over one module (or plain TCP), or why it could not.
 *
 * @param module        the module alone that made the connections, or {@code plain}
 * @param ok            every connection was made and every byte checked
 * @param firstSetupMs  the first connection of a fresh node with only this module
 * @param cachedSetupMs the next connection, with what worked cached
 * @param rttP50Us      one-byte round trips, median
 * @param rttP99Us      99th percentile
 * @param upMBps        client to server, MB/s (10^6 bytes), checked by SHA-256 at the server
 * @param downMBps      server to client, checked here
 * @param bytesVerified both ways together
 * @param error         why it failed, or empty
 */
record PathResult(
        String module,
        boolean ok,
        double firstSetupMs,
        double cachedSetupMs,
        double rttP50Us,
        double rttP99Us,
        double upMBps,
        double downMBps,
        long bytesVerified,
        String error) {
    static PathResult failed(String module, String error) {
        return new PathResult(module, false, -1, -1, -1, -1, -1, -1, 0, error);
    }
}
