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
 * 1-byte round trip over one connected pair (TCP_NODELAY on both ends): the JMH thread writes a
 * byte and waits for it to come back from an echo thread on the server side.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class RoundTrip {
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
    private InputStream in;
    private Thread echo;
    private final byte[] buf = new byte[1];

    @Setup(Level.Trial)
    public void start() throws IOException {
        pair = ConnectedPair.of(contender);
        out = pair.client.getOutputStream();
        in = pair.client.getInputStream();
        InputStream serverIn = pair.server.getInputStream();
        OutputStream serverOut = pair.server.getOutputStream();
        echo = Loopback.serverThread("bench-echo", () -> {
            byte[] b = new byte[1];
            try {
                while (serverIn.read(b, 0, 1) == 1) {
                    serverOut.write(b, 0, 1);
                }
            } catch (IOException ignored) {
                // closed at tear-down
            }
        });
    }

    @TearDown(Level.Trial)
    public void stop() {
        pair.close();
        Loopback.join(echo);
    }

    @Benchmark
    public int oneByte() throws IOException {
        out.write(buf, 0, 1);
        if (in.read(buf, 0, 1) != 1) {
            throw new IOException("echo closed");
        }
        return buf[0];
    }
}
