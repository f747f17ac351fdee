package io.traverse.bench.longpoll;

import io.traverse.Traverse;
import io.traverse.TraverseConfig;
import io.traverse.TraverseServerSocket;
import io.traverse.VirtualSocketAddress;
import io.traverse.bench.hub.ChildHub;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The RobustTrav latency measurement (papers/robusttrav-longpolling.txt §5.1) on our stack: one
 * hub on loopback (a child JVM), {@code clients} nodes whose hub link is a long-poll session
 * ({@code traverse.http.tunnel=longpoll}, no proxy), each accepting one connection from a
 * publisher node linked to the hub by TCP (routed only, so nothing goes direct on loopback). Every
 * interval the publisher writes one event — sequence number and {@link System#nanoTime()} — on
 * each connection, so every event travels the session's downstream leg: hub, HTTP poll answer,
 * client node. Publisher and clients share this JVM, so one clock stamps both ends (as the
 * paper's EventGenerator and clients shared one VM). Clients count losses and order violations
 * and keep every latency sample (exact, sorted for the percentiles).
 *
 * <pre>
 * java -cp bench/target/benchmarks.jar io.traverse.bench.longpoll.EventLatency \
 *     [--clients 50] [--events 10000] [--interval 30] [--sweep defaults|paper|PARAM|PARAM=v1,v2 ...] [--csv FILE] [--tcp-clients] [--warmup EVENTS]
 * </pre>
 * PARAM is server-timeout, client-timeout, regenerate, batch-size (events) or batch-timespan; alone
 * it means the paper's Table 2 values. Each point runs with fresh client nodes; the others keep
 * our defaults. {@code --tcp-clients} links the clients by TCP instead (routed connections): the
 * baseline that tells the long-poll session's share of the latency from the rest of the stack's.
 * {@code --warmup N} first runs a point of N events at our defaults whose figures are not results
 * (the first point in a JVM also pays for class loading and JIT compilation).
 */
public final class EventLatency implements AutoCloseable {
    private static final String TOKEN = "bench-latency";
    private static final int EVENT_BYTES = 16;
    /** Events at least this slow are listed on stderr with the second of the run they were sent in. */
    static final long SLOW_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    private final ChildHub hub;
    private final Traverse publisher;
    /** false: the clients link by TCP as the publisher does (the routed baseline, to tell the session's share of the latency) */
    private boolean longPollClients = true;

    private EventLatency(ChildHub hub, Traverse publisher) {
        this.hub = hub;
        this.publisher = publisher;
    }

    /** Clients linked by TCP instead (routed connections with data links): the baseline the long-poll numbers are compared with. */
    public EventLatency tcpClients() {
        longPollClients = false;
        return this;
    }

    /** A hub in a child JVM and the publisher node linked to it. */
    public static EventLatency start() throws IOException {
        ChildHub hub = new ChildHub("latency-hub", 2000, TOKEN, List.of(), "512m", true);
        try {
            Traverse publisher =
                    Traverse.start(nodeConfig(hub).modules("routed").build());
            awaitLink(publisher, false);
            return new EventLatency(hub, publisher);
        } catch (IOException | RuntimeException e) {
            closeHub(hub);
            throw e;
        }
    }

    private static TraverseConfig.Builder nodeConfig(ChildHub hub) {
        return TraverseConfig.builder()
                .bind("127.0.0.1")
                .token(TOKEN)
                .discovery(false)
                .hubs(List.of(new InetSocketAddress("127.0.0.1", hub.port())));
    }

    private static void awaitLink(Traverse node, boolean longPoll) throws IOException {
        try {
            if (!node.awaitHubLink(Duration.ofSeconds(30))) {
                throw new IOException("node " + node + " did not link to its hub");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted");
        }
        if (longPoll && node.hubLongPollRoute().isEmpty()) {
            throw new IOException("the client's hub link is not a long-poll session");
        }
    }

    /** The default point: every parameter at our defaults. */
    public LatencyResult run(int clients, int events, Duration interval) throws IOException, InterruptedException {
        return run(clients, events, interval, "defaults", Map.of());
    }

    /**
     * One sweep point with fresh client nodes.
     *
     * @param settings {@code traverse.longpoll.*} settings of the clients beyond our defaults
     */
    public LatencyResult run(int clients, int events, Duration interval, String point, Map<String, String> settings)
            throws IOException, InterruptedException {
        List<Client> all = new ArrayList<>();
        // All at once: with a batch timespan every downstream step of a link handshake or a connect waits that long.
        ExecutorService starter = Executors.newFixedThreadPool(clients);
        try {
            List<Future<Client>> starting = new ArrayList<>();
            for (int i = 0; i < clients; i++) {
                int index = i;
                starting.add(starter.submit(() -> Client.start(hub, index, events, settings, longPollClients)));
            }
            IOException failed = null;
            for (Future<Client> f : starting) {
                try {
                    all.add(f.get());
                } catch (java.util.concurrent.ExecutionException e) {
                    failed = e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
                }
            }
            if (failed != null) {
                throw failed;
            }
            List<Future<?>> connecting = new ArrayList<>();
            for (Client c : all) {
                connecting.add(starter.submit(() -> {
                    c.connectFrom(publisher);
                    return null;
                }));
            }
            for (Future<?> f : connecting) {
                try {
                    f.get();
                } catch (java.util.concurrent.ExecutionException e) {
                    throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
                }
            }
            for (Client c : all) {
                c.startReading();
            }
            long publishStart = System.nanoTime();
            Instant publishWall = Instant.now();
            long sent = publish(all, events, interval);
            // What the slowest settings may hold back: a batch timespan, a held poll's repeat.
            long drainNanos = TimeUnit.SECONDS.toNanos(30)
                    + 2 * parseMillis(settings.get("traverse.longpoll.batch.timespan")) * 1_000_000;
            long deadline = System.nanoTime() + drainNanos;
            for (Client c : all) {
                c.awaitEnd(deadline);
            }
            long[] samples = new long[clients * events];
            int count = 0;
            long lost = 0;
            long order = 0;
            for (Client c : all) {
                System.arraycopy(c.samples, 0, samples, count, c.count);
                count += c.count;
                lost += events - c.seen.cardinality();
                order += c.orderViolations;
            }
            reportSlow(point, all, publishStart, publishWall);
            return LatencyResult.of(point, settings.toString(), clients, events, sent, lost, order, samples, count);
        } finally {
            starter.shutdownNow();
            closeAll(all);
        }
    }

    /** Per second of the run with events over 50 ms: how many, and the slowest (stderr; to tell GC, timers and load apart). */
    private static void reportSlow(String point, List<Client> clients, long publishStart, Instant publishWall) {
        java.util.TreeMap<Long, long[]> bySecond = new java.util.TreeMap<>();
        for (Client c : clients) {
            for (long[] e : c.slow) {
                long[] s = bySecond.computeIfAbsent((e[0] - publishStart) / 1_000_000_000L, k -> new long[2]);
                s[0]++;
                s[1] = Math.max(s[1], e[1]);
            }
        }
        StringBuilder b = new StringBuilder(
                "# " + point + ": events >= 50 ms by second after " + publishWall + " (count/slowest ms):");
        bySecond.forEach((second, s) -> b.append(String.format(" %ds:%d/%.1f", second, s[0], s[1] / 1e6)));
        System.err.println(bySecond.isEmpty() ? "# " + point + ": no event took 50 ms or more" : b.toString());
    }

    private static long parseMillis(String value) {
        return value == null ? 0 : Long.parseLong(value.replace("ms", ""));
    }

    /** Every interval one event on each connection, each stamped just before its write. */
    private static long publish(List<Client> clients, int events, Duration interval) throws IOException {
        byte[] event = new byte[EVENT_BYTES];
        ByteBuffer fields = ByteBuffer.wrap(event);
        long period = interval.toNanos();
        long start = System.nanoTime();
        long sent = 0;
        for (int seq = 0; seq < events; seq++) {
            long due = start + seq * period;
            for (long wait = due - System.nanoTime(); wait > 0; wait = due - System.nanoTime()) {
                LockSupport.parkNanos(wait);
            }
            for (Client c : clients) {
                fields.putLong(0, seq).putLong(8, System.nanoTime());
                c.publisherOut.write(event);
                sent++;
            }
        }
        for (Client c : clients) {
            c.publisherSide.shutdownOutput();
        }
        return sent;
    }

    private static void closeAll(List<Client> clients) {
        ExecutorService closer = Executors.newFixedThreadPool(Math.max(1, clients.size()));
        for (Client c : clients) {
            closer.execute(c::close);
        }
        closer.shutdown();
        try {
            closer.awaitTermination(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        try {
            publisher.close();
        } catch (IOException ignored) {
            // the hub goes next anyway
        }
        closeHub(hub);
    }

    private static void closeHub(ChildHub hub) {
        try {
            hub.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A long-poll node with its listener, the accepted connection and what it received. */
    private static final class Client {
        final Traverse node;
        final TraverseServerSocket listener;
        final int events;
        /** The module the publisher's connection must arrive by. */
        final String module;

        final long[] samples;
        final BitSet seen;
        /** {send time, latency} of events slower than {@link #SLOW_NANOS}: when the slow ones happened, to set beside GC logs. */
        final List<long[]> slow = new ArrayList<>();

        int count;
        long orderViolations;
        Socket publisherSide;
        OutputStream publisherOut;
        Socket accepted;
        Thread reader;

        private Client(Traverse node, TraverseServerSocket listener, int events, String module) {
            this.node = node;
            this.module = module;
            this.listener = listener;
            this.events = events;
            this.samples = new long[events];
            this.seen = new BitSet(events);
        }

        static Client start(ChildHub hub, int index, int events, Map<String, String> settings, boolean longPoll)
                throws IOException {
            TraverseConfig.Builder config = longPoll
                    ? nodeConfig(hub).modules("longpoll").set("traverse.http.tunnel", "longpoll")
                    : nodeConfig(hub).modules("routed");
            settings.forEach(config::set);
            Traverse node = Traverse.start(config.build());
            try {
                awaitLink(node, longPoll);
                return new Client(
                        node,
                        node.serverSocketFactory().createServerSocket(0),
                        events,
                        longPoll ? "longpoll" : "routed");
            } catch (IOException | RuntimeException e) {
                node.close();
                throw e;
            }
        }

        void connectFrom(Traverse publisher) throws IOException {
            VirtualSocketAddress target = listener.virtualAddress();
            publisherSide = publisher.socketFactory().createSocket(target.getHostString(), target.getPort());
            publisherSide.setTcpNoDelay(true);
            publisherOut = publisherSide.getOutputStream();
            accepted = listener.accept();
            String arrived = node.connectionInfo(accepted).map(i -> i.module()).orElse("?");
            if (!module.equals(arrived)) {
                throw new IOException(
                        "the publisher's connection reached client " + node + " by " + arrived + ", not " + module);
            }
        }

        void startReading() {
            reader = new Thread(this::read, "latency-client");
            reader.setDaemon(true);
            reader.start();
        }

        private void read() {
            byte[] event = new byte[EVENT_BYTES];
            ByteBuffer fields = ByteBuffer.wrap(event);
            long last = -1;
            try {
                DataInputStream in = new DataInputStream(accepted.getInputStream());
                while (true) {
                    try {
                        in.readFully(event);
                    } catch (EOFException end) {
                        return;
                    }
                    long now = System.nanoTime();
                    long seq = fields.getLong(0);
                    long stamp = fields.getLong(8);
                    if (seq <= last || seq < 0 || seq >= events || seen.get((int) seq)) {
                        orderViolations++;
                    } else {
                        last = seq;
                    }
                    if (seq >= 0 && seq < events) {
                        seen.set((int) seq);
                    }
                    if (count < samples.length) {
                        samples[count++] = now - stamp;
                        if (now - stamp >= SLOW_NANOS && slow.size() < 1000) {
                            slow.add(new long[] {stamp, now - stamp});
                        }
                    }
                }
            } catch (IOException e) {
                // the connection broke: what did not arrive counts as lost
            }
        }

        /** Waits for the end of the stream until {@code deadline}; then cuts it (what is missing counts as lost). */
        void awaitEnd(long deadline) throws InterruptedException {
            long wait = deadline - System.nanoTime();
            if (wait > 0) {
                reader.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(wait)));
            }
            if (reader.isAlive()) {
                closeQuietly(accepted);
                reader.join();
            }
        }

        void close() {
            closeQuietly(publisherSide);
            closeQuietly(accepted);
            closeQuietly(listener);
            closeQuietly(node);
        }
    }

    private static void closeQuietly(AutoCloseable c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (Exception ignored) {
            // closing anyway
        }
    }

    /** The points a {@code --sweep} argument names. */
    static List<SweepPoint> points(String spec) {
        List<SweepPoint> points = new ArrayList<>();
        if (spec.equals("defaults")) {
            points.add(SweepPoint.DEFAULTS);
        } else if (spec.equals("paper")) {
            for (LongPollParameter p : LongPollParameter.values()) {
                for (long v : p.paperValues()) {
                    points.add(SweepPoint.of(p, v));
                }
            }
        } else {
            int eq = spec.indexOf('=');
            LongPollParameter p = LongPollParameter.byLabel(eq < 0 ? spec : spec.substring(0, eq));
            List<Long> values = new ArrayList<>();
            if (eq < 0) {
                values.addAll(p.paperValues());
            } else {
                for (String v : spec.substring(eq + 1).split(",")) {
                    values.add(Long.parseLong(v.trim()));
                }
            }
            for (long v : values) {
                points.add(SweepPoint.of(p, v));
            }
        }
        return points;
    }

    /** A sweep point: a label and the settings it gives the clients. */
    record SweepPoint(String label, Map<String, String> settings) {
        static final SweepPoint DEFAULTS = new SweepPoint("defaults", Map.of());

        static SweepPoint of(LongPollParameter p, long value) {
            long run = p.effective(value);
            String label = p.label() + "=" + value + (run != value ? "(run " + run + ")" : "");
            return new SweepPoint(label, p.settings(value));
        }
    }

    public static void main(String[] args) throws Exception {
        int clients = 50;
        int events = 10_000;
        long intervalMs = 30;
        List<String> sweeps = new ArrayList<>();
        Path csv = null;
        boolean tcp = false;
        int warmup = 0;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--clients" -> clients = Integer.parseInt(args[++i]);
                case "--events" -> events = Integer.parseInt(args[++i]);
                case "--interval" -> intervalMs = Long.parseLong(args[++i]);
                case "--sweep" -> sweeps.add(args[++i]);
                case "--csv" -> csv = Path.of(args[++i]);
                case "--tcp-clients" -> tcp = true;
                case "--warmup" -> warmup = Integer.parseInt(args[++i]);
                default -> {
                    System.err.println(
                            "usage: EventLatency [--clients N] [--events N] [--interval MS]"
                                    + " [--sweep defaults|paper|PARAM|PARAM=v1,v2 ...] [--csv FILE] [--tcp-clients] [--warmup EVENTS]");
                    System.exit(2);
                }
            }
        }
        if (sweeps.isEmpty()) {
            sweeps.add("defaults");
        }
        Map<String, SweepPoint> points = new LinkedHashMap<>();
        for (String s : sweeps) {
            for (SweepPoint p : points(s)) {
                points.putIfAbsent(p.label(), p);
            }
        }
        System.out.printf(
                "# %s, %d %s clients x %d events every %d ms, %d points; load average %s%n",
                Instant.now(),
                clients,
                tcp ? "TCP-linked (routed baseline)" : "long-poll",
                events,
                intervalMs,
                points.size(),
                Files.readString(Path.of("/proc/loadavg")).trim());
        System.out.println(LatencyResult.tableHeader());
        if (csv != null && !Files.exists(csv)) {
            Files.writeString(csv, LatencyResult.csvHeader() + "\n", StandardCharsets.UTF_8);
        }
        try (EventLatency bench = start()) {
            if (tcp) {
                bench.tcpClients();
            }
            if (warmup > 0) {
                // The JVM's first point also pays for class loading and JIT compilation of the whole stack.
                System.out.println(
                        bench.run(clients, warmup, Duration.ofMillis(intervalMs), "warm-up (not a result)", Map.of())
                                .tableRow());
            }
            for (SweepPoint p : points.values()) {
                LatencyResult r = bench.run(clients, events, Duration.ofMillis(intervalMs), p.label(), p.settings());
                System.out.println(r.tableRow());
                if (csv != null) {
                    try (PrintWriter w = new PrintWriter(
                            Files.newBufferedWriter(csv, StandardCharsets.UTF_8, StandardOpenOption.APPEND))) {
                        w.println(r.csvRow());
                    }
                }
            }
        }
    }
}
