package io.traverse.cli.perf;

import io.traverse.testbed.DigestEcho;
import io.traverse.testbed.PathMeasurement;
import java.io.IOException;
import java.net.Socket;
import java.util.function.Consumer;

/**
 * Measures one way to the perf server: the first connection uploads, the second (cached)
 * downloads, the third times round trips on the echo. Every byte is checked.
 */
final class PathMeter {
    /** Opens a connection to one of the server's ports. */
    interface Connector {
        Socket connect(int port) throws IOException;
    }

    private final PerfPorts ports;
    private final long bytes;
    private final int pings;
    private final Consumer<String> progress;

    PathMeter(PerfPorts ports, long bytes, int pings, Consumer<String> progress) {
        this.ports = ports;
        this.bytes = bytes;
        this.pings = pings;
        this.progress = progress;
    }

    PathResult measure(String module, Connector connector) {
        String[] step = {"first connection"};
        try {
            progress.accept(module + ": " + step[0]);
            Leg up = leg(
                    module,
                    connector,
                    ports.upload(),
                    step,
                    "upload of " + bytes + " bytes",
                    (s, seed) -> DigestEcho.exchangeVerified(s, bytes, seed));
            step[0] = "second connection";
            Leg down = leg(
                    module,
                    connector,
                    ports.download(),
                    step,
                    "download of " + bytes + " bytes",
                    (s, seed) -> PathMeasurement.fetchVerified(s, bytes, seed));
            step[0] = pings + " round trips";
            progress.accept(module + ": " + step[0]);
            long[] rtt;
            try (Socket s = connector.connect(ports.echo())) {
                s.setSoTimeout(30_000);
                rtt = PathMeasurement.roundTrips(s, pings);
            }
            return new PathResult(
                    module,
                    true,
                    up.setupMs(),
                    down.setupMs(),
                    PathMeasurement.quantile(rtt, 0.5) / 1e3,
                    PathMeasurement.quantile(rtt, 0.99) / 1e3,
                    up.mbps(),
                    down.mbps(),
                    2 * bytes,
                    "");
        } catch (IOException | RuntimeException e) {
            return PathResult.failed(module, step[0] + ": " + firstLine(e));
        }
    }

    /** A connection's setup time and its transfer's rate. */
    private record Leg(double setupMs, double mbps) {}

    /** One way of moving {@code bytes} over a connection, checked; the seed makes the bytes. */
    private interface Transfer {
        void run(Socket socket, long seed) throws IOException;
    }

    /** Connects to {@code port} (timed), then runs {@code transfer} (timed), naming each step in {@code step} as it goes. */
    private Leg leg(String module, Connector connector, int port, String[] step, String what, Transfer transfer)
            throws IOException {
        long t0 = System.nanoTime();
        try (Socket s = connector.connect(port)) {
            double setup = millisSince(t0);
            step[0] = what;
            progress.accept(module + ": " + what);
            s.setSoTimeout(60_000);
            long t1 = System.nanoTime();
            transfer.run(s, t1);
            return new Leg(setup, bytes / ((System.nanoTime() - t1) / 1e9) / 1e6);
        }
    }

    private static double millisSince(long startNanos) {
        return (System.nanoTime() - startNanos) / 1e6;
    }

    static String firstLine(Throwable e) {
        String m = e.getMessage() == null ? e.toString() : e.getMessage();
        int nl = m.indexOf('\n');
        return nl < 0 ? m : m.substring(0, nl);
    }
}
