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
        String step = "first connection";
        try {
            progress.accept(module + ": " + step);
            long t0 = System.nanoTime();
            double first;
            double up;
            try (Socket s = connector.connect(ports.upload())) {
                first = millisSince(t0);
                step = "upload of " + bytes + " bytes";
                progress.accept(module + ": " + step);
                s.setSoTimeout(60_000);
                long t1 = System.nanoTime();
                DigestEcho.exchangeVerified(s, bytes, t1);
                up = bytes / ((System.nanoTime() - t1) / 1e9) / 1e6;
            }
            step = "second connection";
            long t2 = System.nanoTime();
            double cached;
            double down;
            try (Socket s = connector.connect(ports.download())) {
                cached = millisSince(t2);
                step = "download of " + bytes + " bytes";
                progress.accept(module + ": " + step);
                s.setSoTimeout(60_000);
                long t3 = System.nanoTime();
                PathMeasurement.fetchVerified(s, bytes, t3);
                down = bytes / ((System.nanoTime() - t3) / 1e9) / 1e6;
            }
            step = pings + " round trips";
            progress.accept(module + ": " + step);
            long[] rtt;
            try (Socket s = connector.connect(ports.echo())) {
                s.setSoTimeout(30_000);
                rtt = PathMeasurement.roundTrips(s, pings);
            }
            return new PathResult(module, true, first, cached, PathMeasurement.quantile(rtt, 0.5) / 1e3,
                    PathMeasurement.quantile(rtt, 0.99) / 1e3, up, down, 2 * bytes, "");
        } catch (IOException | RuntimeException e) {
            return PathResult.failed(module, step + ": " + firstLine(e));
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
