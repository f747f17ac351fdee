package io.traverse.splice;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What this node's NAT does to source ports, and which public ports to expect a splice connection
 * from (paper §3.2.3). Two echoes from two fresh local ports tell it: a NAT that keeps both ports
 * (Linux MASQUERADE where the port is free) maps a local port to the same public port for every
 * destination; one whose two public ports lie a few apart hands out ports in turn (the paper
 * tried [port .. port+5]); anything else randomises and cannot be spliced.
 */
final class PortPrediction {
    /** How the NAT maps ports, as two echoes showed. */
    enum Behaviour {
        /** The public port is the local port: the peer sees the port the hub saw. */
        PRESERVING,
        /** The public ports step forward by a few: the peer sees one of the next ports. */
        SEQUENTIAL,
        /** The public ports say nothing about the next one: not spliceable. */
        RANDOM
    }

    /** Which behaviours the node splices: the configured strategy. */
    enum Strategy {
        /** Only NATs that keep the port (the default: what Linux MASQUERADE does). */
        PRESERVE,
        /** Also NATs that hand out the next ports in turn. */
        SEQUENTIAL;

        static Strategy parse(String text) {
            return valueOf(text.toUpperCase(Locale.ROOT));
        }

        boolean splices(Behaviour b) {
            return b == Behaviour.PRESERVING || (this == SEQUENTIAL && b == Behaviour.SEQUENTIAL);
        }
    }

    /** One echo: the local port a connection left from, the public port the hub saw. */
    record Echo(int localPort, int publicPort) {}

    private PortPrediction() {}

    /**
     * Classifies two echoes from two different local ports.
     *
     * @param maxStep the largest distance between the two public ports still read as sequential
     */
    static Behaviour classify(Echo first, Echo second, int maxStep) {
        if (first.localPort() == first.publicPort() && second.localPort() == second.publicPort()) {
            return Behaviour.PRESERVING;
        }
        int step = Math.abs(second.publicPort() - first.publicPort());
        return step >= 1 && step <= maxStep ? Behaviour.SEQUENTIAL : Behaviour.RANDOM;
    }

    /**
     * The public ports a connection from the echoed local port should show the peer: the echoed
     * port on for a preserving NAT (an endpoint-independent mapping), the ports after it for a
     * sequential one (a new destination gets a new mapping); {@code count} ports, within 1-65535.
     */
    static List<Integer> candidates(Behaviour behaviour, int echoedPort, int count) {
        if (behaviour == Behaviour.RANDOM) {
            return List.of();
        }
        int first = behaviour == Behaviour.PRESERVING ? echoedPort : echoedPort + 1;
        List<Integer> ports = new ArrayList<>(count);
        for (int p = first; p < first + count && p <= 65535; p++) {
            ports.add(p);
        }
        return ports;
    }

    /**
     * How long the target waits after sending its answer before its first SYN, so that it leaves
     * when the source, which fires on receipt, does: the answer's way through the hubs, half of
     * each side's round trip to its hub.
     */
    static long fireDelayNanos(long sourceHubRttNanos, long targetHubRttNanos) {
        return Math.max(0, sourceHubRttNanos) / 2 + Math.max(0, targetHubRttNanos) / 2;
    }
}
