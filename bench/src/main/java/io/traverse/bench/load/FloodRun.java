package io.traverse.bench.load;

import io.traverse.Traverse;
import io.traverse.TraverseServerSocket;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Floods and slowloris against a hub in its own process ({@link FloodHubProcess}), on loopback:
 * idle connections to the link port at a steady rate from eight source addresses, a burst from one
 * address, clients that send a link preamble or an HTTP request head a byte every 100 ms to both
 * ports, and idle connections to the HTTP port; meanwhile two real nodes link, one binds a name and
 * the other sends it 1 MiB through the hub, which comes back as length + SHA-256. Samples the hub
 * process's open file descriptors and resident memory every 100 ms and prints what it held at
 * most, what it cut, and how long the real nodes took (and, before the flood, one node's link time
 * as the control).
 *
 * <p>Options (defaults in brackets): {@code --idle N} idle link-port connections [20000],
 * {@code --rate N} of them a second [2000], {@code --slow N} slowloris clients of each kind [200],
 * {@code --http N} idle HTTP-port connections [2000], {@code --deadline-ms N} the hub's handshake and
 * request deadlines [10000], {@code --max-handshakes N} [1024], {@code --max-per-address N} [256],
 * {@code --max-http N} [256], {@code --hub-fd-limit N} the hub process's open files limit, set with
 * {@code prlimit} [0: as inherited], {@code --nodes-after-ms N} when the real nodes start, after the
 * flood's [1000]. Bounds set very high show what the hub does without them.
 */
public final class FloodRun {
    private static final String TOKEN = "flood-run";
    private static final int MIB = 1 << 20;

    private FloodRun() {}

    public static void main(String[] args) throws Exception {
        Map<String, Long> o = new HashMap<>(Map.of(
                "idle", 20_000L,
                "rate", 2_000L,
                "slow", 200L,
                "http", 2_000L,
                "deadline-ms", 10_000L,
                "max-handshakes", 1_024L,
                "max-per-address", 256L,
                "max-http", 256L,
                "hub-fd-limit", 0L,
                "nodes-after-ms", 1000L));
        for (int i = 0; i + 1 < args.length; i += 2) {
            String key = args[i].replaceFirst("^--", "");
            if (!o.containsKey(key)) {
                throw new IllegalArgumentException("unknown option " + args[i] + "; known: " + o.keySet());
            }
            o.put(key, Long.parseLong(args[i + 1]));
        }
        System.out.println("# options " + o);
        ExecutorService threads = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "flood-run");
            t.setDaemon(true);
            return t;
        });
        try (ChildJvm hub = new ChildJvm(
                        "hub",
                        List.of("-Xmx512m"),
                        FloodHubProcess.class,
                        List.of(
                                TOKEN,
                                o.get("deadline-ms").toString(),
                                o.get("max-handshakes").toString(),
                                o.get("max-per-address").toString(),
                                o.get("max-http").toString()),
                        "PORTS",
                        line -> {
                            if (!line.startsWith("PORTS") && !line.startsWith("REFUSED")) {
                                System.out.println("hub: " + line);
                            }
                        });
                ConnectionFlood flood = new ConnectionFlood()) {
            String[] ports = hub.ask(null, "PORTS", 60).split(" ");
            InetSocketAddress link = new InetSocketAddress("127.0.0.1", Integer.parseInt(ports[1]));
            InetSocketAddress http = new InetSocketAddress("127.0.0.1", Integer.parseInt(ports[2]));
            if (o.get("hub-fd-limit") > 0) {
                // Fewer descriptors for the hub than for the flood, so that it is the hub's limit a run can reach.
                long limit = o.get("hub-fd-limit");
                Process p = new ProcessBuilder(
                                "prlimit", "--pid", Long.toString(hub.pid()), "--nofile=" + limit + ":" + limit)
                        .inheritIO()
                        .start();
                if (p.waitFor() != 0) {
                    throw new IOException("prlimit could not set the hub's open files limit");
                }
            }
            Sampler sampler = new Sampler(hub.pid());
            threads.execute(sampler);

            long warm = linkMillis(link, threads); // the first node loads the classes
            long control = linkMillis(link, threads);
            System.out.printf(
                    "control: a node linked in %d ms (the first, loading classes, in %d ms)%n", control, warm);
            long baseFds = sampler.fds.get();
            long baseRss = sampler.rssKib.get();

            ConnectionFlood.Kind idle = new ConnectionFlood.Kind("link port, idle", link, new byte[0], 0);
            ConnectionFlood.Kind one = new ConnectionFlood.Kind("link port, one address", link, new byte[0], 0);
            ConnectionFlood.Kind slowLink = new ConnectionFlood.Kind("link port, slow preamble", link, slowLink(), 100);
            ConnectionFlood.Kind slowLongPoll = new ConnectionFlood.Kind(
                    "link port, slow HTTP",
                    link,
                    slowHead("POST /traverse/longpoll/v1/open HTTP/1.1\r\nHost: hub\r\nX-Slow: "),
                    100);
            ConnectionFlood.Kind httpIdle = new ConnectionFlood.Kind("HTTP port, idle", http, new byte[0], 0);
            ConnectionFlood.Kind slowHttp = new ConnectionFlood.Kind(
                    "HTTP port, slow request", http, slowHead("GET /status HTTP/1.1\r\nHost: hub\r\nX-Slow: "), 100);
            List<ConnectionFlood.Kind> kinds = List.of(idle, one, slowLink, slowLongPoll, httpIdle, slowHttp);

            sampler.resetMax();
            long floodStart = System.nanoTime();
            AtomicBoolean nodesDone = new AtomicBoolean();
            CompletableFuture<Void> flooding = CompletableFuture.runAsync(
                    () -> {
                        for (int i = 0; i < o.get("slow"); i++) {
                            flood.open(slowLink, ConnectionFlood.loopback(10));
                            flood.open(slowLongPoll, ConnectionFlood.loopback(11));
                            flood.open(slowHttp, ConnectionFlood.loopback(13));
                        }
                        for (int i = 0; i < o.get("http"); i++) {
                            flood.open(httpIdle, ConnectionFlood.loopback(12));
                        }
                        for (int i = 0; i < 400; i++) {
                            flood.open(one, ConnectionFlood.loopback(14));
                        }
                        long start = System.nanoTime();
                        long rate = o.get("rate");
                        for (long i = 0; i < o.get("idle") || !nodesDone.get(); i++) {
                            long wait = start + TimeUnit.SECONDS.toNanos(1) * i / rate - System.nanoTime();
                            if (wait > 0) {
                                LockSupport.parkNanos(wait);
                            }
                            flood.open(idle, ConnectionFlood.loopback(2 + (int) (i % 8)));
                        }
                    },
                    threads);

            // The real nodes, a while into the flood.
            Thread.sleep(o.get("nodes-after-ms"));
            String outcome;
            try {
                outcome = realNodes(link, threads, idle);
            } catch (Exception e) {
                outcome = "FAILED: " + e;
            }
            nodesDone.set(true);
            flooding.get(600, TimeUnit.SECONDS);
            long floodSeconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - floodStart);
            long waitUntil = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(o.get("deadline-ms") + 10_000);
            while (kinds.stream().anyMatch(k -> k.open() > 0) && System.nanoTime() - waitUntil < 0) {
                Thread.sleep(200);
            }
            String refused = hub.ask("REFUSED", "REFUSED", 30);

            System.out.println("real nodes during the flood: " + outcome);
            System.out.printf(
                    "flood: %d connections opened in %d s; hub process held at most %d file descriptors"
                            + " (%d before the flood), resident memory at most %d MiB (%d MiB before)%n",
                    kinds.stream().mapToLong(k -> k.opened.get()).sum(),
                    floodSeconds,
                    sampler.maxFds.get(),
                    baseFds,
                    sampler.maxRssKib.get() / 1024,
                    baseRss / 1024);
            kinds.forEach(k -> System.out.println("  " + k));
            System.out.println(
                    "hub " + refused.toLowerCase(java.util.Locale.ROOT).replace("refused", "refused:"));
            sampler.stop();
            hub.send("QUIT");
        } finally {
            threads.shutdownNow();
        }
    }

    /** Two nodes link; one binds a name, the other sends it 1 MiB by name and gets length + SHA-256 back. */
    private static String realNodes(InetSocketAddress link, ExecutorService threads, ConnectionFlood.Kind idle)
            throws Exception {
        long start = System.nanoTime();
        long idleBefore = idle.opened.get();
        try (Traverse server = Traverse.start(LoadClient.nodeConfig(link, TOKEN));
                Traverse client = Traverse.start(LoadClient.nodeConfig(link, TOKEN))) {
            if (!server.awaitHubLink(Duration.ofSeconds(30)) || !client.awaitHubLink(Duration.ofSeconds(30))) {
                return "did NOT link within 30 s";
            }
            long linked = millisSince(start);
            TraverseServerSocket listening = server.serverSocketFactory().createServerSocket("flood-target", 7000);
            CompletableFuture<Void> serving = CompletableFuture.runAsync(
                    () -> {
                        try (Socket s = listening.accept()) {
                            MessageDigest sha = MessageDigest.getInstance("SHA-256");
                            byte[] buffer = new byte[64 * 1024];
                            long total = 0;
                            InputStream in = s.getInputStream();
                            for (int n; (n = in.read(buffer)) > 0; ) {
                                sha.update(buffer, 0, n);
                                total += n;
                            }
                            DataOutputStream out = new DataOutputStream(s.getOutputStream());
                            out.writeLong(total);
                            out.write(sha.digest());
                            out.flush();
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                    },
                    threads);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (client.hubDirectory()
                    .resolveName("flood-target")
                    .get(10, TimeUnit.SECONDS)
                    .isEmpty()) {
                if (System.nanoTime() - deadline > 0) {
                    return "linked in " + linked + " ms; the name did not resolve within 30 s";
                }
                Thread.sleep(50);
            }
            long named = millisSince(start);
            byte[] data = new byte[MIB];
            new Random(25).nextBytes(data);
            byte[] expected = MessageDigest.getInstance("SHA-256").digest(data);
            try (Socket s = client.socketFactory().createSocket("flood-target", 7000)) {
                OutputStream out = s.getOutputStream();
                out.write(data);
                s.shutdownOutput();
                DataInputStream in = new DataInputStream(s.getInputStream());
                long length = in.readLong();
                byte[] digest = new byte[32];
                in.readFully(digest);
                serving.get(30, TimeUnit.SECONDS);
                listening.close();
                boolean ok = length == MIB && Arrays.equals(digest, expected);
                return String.format(
                        "linked in %d ms, name resolved by %d ms, 1 MiB relayed by %d ms (%s); %d idle connections"
                                + " opened meanwhile",
                        linked,
                        named,
                        millisSince(start),
                        ok ? "length and SHA-256 match" : "MISMATCH: " + length + " bytes",
                        idle.opened.get() - idleBefore);
            }
        }
    }

    private static long linkMillis(InetSocketAddress link, ExecutorService threads) throws Exception {
        long start = System.nanoTime();
        try (Traverse node = Traverse.start(LoadClient.nodeConfig(link, TOKEN))) {
            if (!node.awaitHubLink(Duration.ofSeconds(30))) {
                throw new IOException("the control node did not link");
            }
            return millisSince(start);
        }
    }

    private static long millisSince(long startNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }

    private static byte[] slowLink() {
        ByteBuffer b = ByteBuffer.allocate(8 + 4 + 400);
        b.putInt(0x5452564C).putShort((short) 1).putShort((short) 1).putInt(1000);
        while (b.hasRemaining()) {
            b.put((byte) 1);
        }
        return b.array();
    }

    private static byte[] slowHead(String start) {
        return (start + "a".repeat(8000)).getBytes(StandardCharsets.US_ASCII);
    }

    /** The hub process's open file descriptors and resident memory, every 100 ms, with their maxima. */
    private static final class Sampler implements Runnable {
        final long pid;
        final AtomicLong fds = new AtomicLong();
        final AtomicLong rssKib = new AtomicLong();
        final AtomicLong maxFds = new AtomicLong();
        final AtomicLong maxRssKib = new AtomicLong();
        private volatile boolean stopped;

        Sampler(long pid) {
            this.pid = pid;
        }

        void resetMax() {
            maxFds.set(fds.get());
            maxRssKib.set(rssKib.get());
        }

        void stop() {
            stopped = true;
        }

        @Override
        public void run() {
            Path fdDir = Path.of("/proc", Long.toString(pid), "fd");
            Path status = Path.of("/proc", Long.toString(pid), "status");
            while (!stopped) {
                try (var list = Files.list(fdDir)) {
                    fds.set(list.count());
                    maxFds.accumulateAndGet(fds.get(), Math::max);
                    for (String line : Files.readAllLines(status)) {
                        if (line.startsWith("VmRSS:")) {
                            rssKib.set(Long.parseLong(line.replaceAll("[^0-9]", "")));
                            maxRssKib.accumulateAndGet(rssKib.get(), Math::max);
                        }
                    }
                    Thread.sleep(100);
                } catch (IOException | RuntimeException e) {
                    return; // the hub is gone
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }
}
