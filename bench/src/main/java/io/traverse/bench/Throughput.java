package io.traverse.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Bulk throughput over one connected pair: the JMH thread writes {@value #CHUNK}-byte chunks to
 * the client socket, a server thread reads them into a buffer of the same size and drops them.
 * Score: chunks per second; MB/s = score &times; {@value #CHUNK} / 10<sup>6</sup>.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class Throughput {
    public static final int CHUNK = 64 * 1024;

    /** See {@link ConnectedPair#of}; {@code plain-channel} is a diagnostic contender ({@link ConnectedPair#plainChannel()}). */
    @Param({
        "plain",
        "traverse",
        "in-band-eos",
        "plain-channel",
        "socat",
        "c-relay-1",
        "c-relay-2",
        "c-relay-3",
        "routed-1",
        "routed-1-link",
        "routed-1-tls",
        "routed-1-clear",
        "routed-2",
        "routed-3",
        "routed-1-proxy",
        "proxy-tunnel",
        "routed-1-squid",
        "squid-tunnel",
        "longpoll-1",
        "longpoll-1-down"
    })
    public String contender;

    private ConnectedPair pair;
    private OutputStream out;
    private Thread drain;
    private final byte[] chunk = new byte[CHUNK];

    @Setup(Level.Trial)
    public void start() throws IOException {
        pair = ConnectedPair.of(contender);
        out = pair.client.getOutputStream();
        InputStream in = pair.server.getInputStream();
        for (int i = 0; i < chunk.length; i++) {
            chunk[i] = (byte) i;
        }
        drain = Loopback.serverThread("bench-drain", () -> {
            byte[] buf = new byte[CHUNK];
            try {
                while (in.read(buf) >= 0) {
                    // drop
                }
            } catch (IOException ignored) {
                // closed at tear-down
            }
        });
    }

    @TearDown(Level.Trial)
    public void stop() {
        pair.close();
        Loopback.join(drain);
    }

    @Benchmark
    public void write64k() throws IOException {
        out.write(chunk);
    }
}
