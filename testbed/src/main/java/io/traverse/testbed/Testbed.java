package io.traverse.testbed;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One emulated network, built from Linux network namespaces, and the owner of everything in it.
 *
 * <p>Every namespace is named {@code tvb-<pid>-<run>-<label>}, so concurrent runs never collide
 * and namespaces left behind by a run that died can be recognised and removed
 * ({@link #removeStale()}, done once per JVM by {@link #create()}). {@link #close()} stops the
 * processes started in the testbed and deletes its namespaces, with their interfaces, addresses
 * and netfilter tables; a JVM shutdown hook does the same for testbeds still open at exit.
 *
 * <p>No interface is ever created in the host's own namespace: veth pairs are made with both ends
 * directly in testbed namespaces, so no packet can leave the emulated network.
 */
public final class Testbed implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Testbed.class);
    /** Every namespace the testbed creates starts with this. */
    public static final String NAME_PREFIX = "tvb-";

    private static final Pattern OUR_NAME = Pattern.compile(Pattern.quote(NAME_PREFIX) + "(\\d+)-\\d+-[a-z0-9-]+");
    private static final Pattern LABEL = Pattern.compile("[a-z][a-z0-9-]{0,23}");
    private static final AtomicInteger RUNS = new AtomicInteger();
    private static final Set<Testbed> OPEN = ConcurrentHashMap.newKeySet();
    private static final AtomicBoolean STARTED_ONCE = new AtomicBoolean();

    private final HostCapabilities host;
    private final String prefix;
    private final List<NetworkNamespace> namespaces = new ArrayList<>();
    private final Set<String> labels = new HashSet<>();
    private final Deque<AutoCloseable> resources = new ArrayDeque<>();
    private Internet internet;
    private WanLatency latency = WanLatency.none();
    private boolean closed;

    private Testbed(HostCapabilities host) {
        this.host = host;
        this.prefix = NAME_PREFIX + ProcessHandle.current().pid() + "-" + RUNS.incrementAndGet() + "-";
    }

    /**
     * Starts an empty testbed.
     *
     * @throws TestbedException if this machine cannot run it (not root, {@code ip} or {@code nft} missing)
     */
    public static Testbed create() {
        HostCapabilities host = HostCapabilities.probe();
        host.problem().ifPresent(problem -> {
            throw new TestbedException(problem);
        });
        if (STARTED_ONCE.compareAndSet(false, true)) {
            Runtime.getRuntime().addShutdownHook(new Thread(Testbed::closeAllOpen, "testbed-cleanup"));
            List<String> removed = removeStale(host);
            if (!removed.isEmpty()) {
                log.info("Removed {} namespaces left by earlier runs: {}", removed.size(), removed);
            }
        }
        Testbed testbed = new Testbed(host);
        OPEN.add(testbed);
        return testbed;
    }

    /** The tools this testbed uses. */
    public HostCapabilities host() {
        return host;
    }

    /** A new empty namespace with its loopback interface up. */
    public synchronized NetworkNamespace namespace(String label) {
        ensureOpen();
        if (!LABEL.matcher(label).matches()) {
            throw new IllegalArgumentException("namespace label '" + label
                    + "' must be 1-24 lower-case letters, digits or '-', starting with a letter");
        }
        if (!labels.add(label)) {
            throw new IllegalArgumentException("this testbed already has a namespace labelled '" + label + "'");
        }
        NetworkNamespace ns = new NetworkNamespace(this, prefix + label, label);
        namespaces.add(ns); // before creating it: a half-made namespace is removed too
        HostCommand.run(List.of(host.tool("ip"), "netns", "add", ns.name()), null, NetworkNamespace.COMMAND_TIMEOUT);
        ns.setUp("lo");
        return ns;
    }

    /** The public network shared by every site (made on first use). */
    public synchronized Internet internet() {
        ensureOpen();
        if (internet == null) {
            internet = new Internet(namespace("internet"), latency);
        }
        return internet;
    }

    /**
     * Gives the internet WAN latency between its places (sites and public hosts); must come before
     * anything is plugged into it.
     *
     * @throws IllegalStateException if the internet is already made
     */
    public synchronized Testbed wanLatency(WanLatency wanLatency) {
        ensureOpen();
        if (internet != null) {
            throw new IllegalStateException("the internet is already made: set its latency first");
        }
        latency = java.util.Objects.requireNonNull(wanLatency, "wanLatency");
        return this;
    }

    /**
     * A private network {@code lanCidr} (e.g. {@code 10.0.0.0/24}) behind a {@link NatRouter} on the
     * internet. Several sites may use the same range.
     */
    public Site site(String label, String lanCidr) {
        AddressPool lan = new AddressPool(lanCidr); // checked before anything is made
        Internet net = internet();
        return Site.create(label, lan, namespace(label + "-router"), net);
    }

    /** Closes {@code resource} when the testbed closes, before its namespaces go (last tracked, first closed). */
    public synchronized <T extends AutoCloseable> T track(T resource) {
        if (closed) {
            closeQuietly(resource);
            throw new TestbedException("the testbed is closed");
        }
        resources.push(resource);
        return resource;
    }

    /** The namespaces made so far. */
    public synchronized List<NetworkNamespace> namespaces() {
        return List.copyOf(namespaces);
    }

    /**
     * Stops what was started in the testbed and deletes its namespaces. Goes on after a failure and
     * reports every failure at the end.
     */
    @Override
    public void close() {
        List<AutoCloseable> toClose;
        List<NetworkNamespace> toDelete;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            toClose = new ArrayList<>(resources);
            resources.clear();
            toDelete = new ArrayList<>(namespaces);
        }
        OPEN.remove(this);
        List<String> problems = new ArrayList<>();
        for (AutoCloseable resource : toClose) {
            try {
                resource.close();
            } catch (Exception e) {
                problems.add("closing " + resource + ": " + e);
            }
        }
        for (int i = toDelete.size() - 1; i >= 0; i--) {
            String problem = deleteNamespace(host, toDelete.get(i).name());
            if (problem != null) {
                problems.add(problem);
            }
        }
        if (!problems.isEmpty()) {
            throw new TestbedException("testbed cleanup failed: " + String.join("; ", problems));
        }
    }

    /**
     * Deletes the namespaces of earlier runs that died without cleaning up: names with our prefix
     * whose process id no longer runs. Returns the names removed.
     */
    public static List<String> removeStale() {
        HostCapabilities host = HostCapabilities.probe();
        host.problem().ifPresent(problem -> {
            throw new TestbedException(problem);
        });
        return removeStale(host);
    }

    private static List<String> removeStale(HostCapabilities host) {
        List<String> removed = new ArrayList<>();
        String listing = HostCommand.run(
                        List.of(host.tool("ip"), "netns", "list"), null, NetworkNamespace.COMMAND_TIMEOUT)
                .stdout();
        for (String line : listing.split("\n")) {
            String name = line.trim().split("\\s+")[0];
            Matcher m = OUR_NAME.matcher(name);
            if (!m.matches()) {
                continue;
            }
            long pid = Long.parseLong(m.group(1));
            boolean alive = ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
            if (!alive) {
                String problem = deleteNamespace(host, name);
                if (problem == null) {
                    removed.add(name);
                } else {
                    log.warn("Cannot remove stale namespace: {}", problem);
                }
            }
        }
        return removed;
    }

    /**
     * Kills what still runs in the namespace (only testbed processes run there), then deletes it and
     * its files under /etc/netns, whatever became of the namespace.
     */
    private static String deleteNamespace(HostCapabilities host, String name) {
        String problem = deleteNamespaceOnly(host, name);
        String files = NetworkNamespace.removeEtcFiles(name);
        return problem == null ? files : files == null ? problem : problem + "; " + files;
    }

    private static String deleteNamespaceOnly(HostCapabilities host, String name) {
        String ip = host.tool("ip");
        Duration timeout = NetworkNamespace.COMMAND_TIMEOUT;
        try {
            CommandResult pids = HostCommand.runAllowingFailure(List.of(ip, "netns", "pids", name), null, timeout);
            if (pids.succeeded()) {
                for (String pid : pids.stdout().split("\\s+")) {
                    if (pid.matches("\\d+")) {
                        ProcessHandle.of(Long.parseLong(pid)).ifPresent(ProcessHandle::destroyForcibly);
                    }
                }
            }
            CommandResult deleted = HostCommand.runAllowingFailure(List.of(ip, "netns", "delete", name), null, timeout);
            if (!deleted.succeeded() && !deleted.stderr().contains("No such file")) {
                return "ip netns delete " + name + " exited with " + deleted.exitCode() + ": "
                        + deleted.stderr().strip();
            }
            return null;
        } catch (TestbedException e) {
            return "deleting namespace " + name + ": " + e.getMessage();
        }
    }

    private static void closeAllOpen() {
        for (Testbed testbed : List.copyOf(OPEN)) {
            try {
                testbed.close();
            } catch (RuntimeException e) {
                log.error("Testbed cleanup at exit failed: {}", e.getMessage());
            }
        }
    }

    private void ensureOpen() {
        if (closed) {
            throw new TestbedException("the testbed is closed");
        }
    }

    private static void closeQuietly(AutoCloseable resource) {
        try {
            resource.close();
        } catch (Exception ignored) {
            // already failing
        }
    }

    @Override
    public String toString() {
        return "Testbed[" + prefix + "*]";
    }
}
