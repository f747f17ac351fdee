package io.traverse.testbed;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One Linux network namespace made by a {@link Testbed}: its own interfaces, addresses, routes,
 * netfilter tables and sysctls. Interface names only need to be unique inside it. Programs run
 * in it through {@code ip netns exec}; everything goes when the testbed closes.
 */
public final class NetworkNamespace {
    /** Long enough for any {@code ip} or {@code nft} call, short enough that a hang fails a test quickly. */
    static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(15);
    /** Where {@code ip netns exec} finds files to mount over {@code /etc} for a namespace. */
    private static final Path ETC_NETNS = Path.of("/etc/netns");

    private final Testbed testbed;
    private final String name;
    private final String label;

    NetworkNamespace(Testbed testbed, String name, String label) {
        this.testbed = testbed;
        this.name = name;
        this.label = label;
    }

    /** The system-wide name, e.g. {@code tvb-4711-1-site1-router}. */
    public String name() {
        return name;
    }

    /** The short name the test gave it, e.g. {@code site1-router}. */
    public String label() {
        return label;
    }

    /** The command line that runs {@code argv} inside this namespace. */
    public List<String> command(List<String> argv) {
        List<String> full = new ArrayList<>(List.of(testbed.host().tool("ip"), "netns", "exec", name));
        full.addAll(argv);
        return full;
    }

    /** Runs a program in this namespace; throws unless it exits 0. */
    public CommandResult exec(String... argv) {
        return exec(COMMAND_TIMEOUT, null, List.of(argv));
    }

    /** Runs a program in this namespace with standard input and a timeout; throws unless it exits 0. */
    public CommandResult exec(Duration timeout, String input, List<String> argv) {
        return HostCommand.run(command(argv), input, timeout);
    }

    /** Runs a program in this namespace and returns however it exited. */
    public CommandResult execAllowingFailure(Duration timeout, String input, List<String> argv) {
        return HostCommand.runAllowingFailure(command(argv), input, timeout);
    }

    /**
     * Starts a long-running program in this namespace. The builder's command is the program
     * as it would run on the host; redirections and environment are kept. The testbed stops
     * the process when it closes, if it is still running.
     */
    public Process start(ProcessBuilder builder) {
        ProcessBuilder inside = builder.command(command(builder.command()));
        Process process;
        try {
            process = inside.start();
        } catch (IOException e) {
            throw new TestbedException("cannot start " + String.join(" ", inside.command()) + ": " + e.getMessage(), e);
        }
        testbed.track(() -> stop(process));
        return process;
    }

    /**
     * Gives the programs run in this namespace their own resolver: {@code ip netns exec} mounts
     * {@code /etc/netns/NAME/resolv.conf} over {@code /etc/resolv.conf} for them. Removed with the
     * namespace.
     */
    public void useNameserver(InetAddress nameserver) {
        Path dir = ETC_NETNS.resolve(name);
        try {
            Files.createDirectories(dir);
            // glibc's defaults, written out: a silent server costs 2 tries of 5 s
            Files.writeString(
                    dir.resolve("resolv.conf"),
                    "nameserver " + nameserver.getHostAddress() + "\noptions timeout:5 attempts:2\n");
        } catch (IOException e) {
            throw new TestbedException("cannot write " + dir.resolve("resolv.conf") + ": " + e.getMessage(), e);
        }
    }

    /** Removes what {@link #useNameserver} wrote for namespace {@code name}; a problem in words, or null. */
    static String removeEtcFiles(String name) {
        Path dir = ETC_NETNS.resolve(name);
        try {
            Files.deleteIfExists(dir.resolve("resolv.conf"));
            Files.deleteIfExists(dir);
            return null;
        } catch (IOException e) {
            return "removing " + dir + ": " + e;
        }
    }

    /** Adds an address such as {@code 10.0.0.2/24} to an interface. */
    public void addAddress(String iface, String addressWithPrefix) {
        ip("addr", "add", addressWithPrefix, "dev", iface);
    }

    /** Brings an interface up. */
    public void setUp(String iface) {
        ip("link", "set", iface, "up");
    }

    /** Adds a route; {@code destination} is a network such as {@code 10.1.0.0/16} or {@code default}. */
    public void addRoute(String destination, InetAddress gateway) {
        ip("route", "add", destination, "via", gateway.getHostAddress());
    }

    /** Makes this namespace a router: it forwards IPv4 packets between its interfaces. */
    public void enableForwarding() {
        writeSysctl("net/ipv4/ip_forward", "1");
    }

    /** Sets a sysctl of this namespace, e.g. {@code net/ipv4/ip_forward}. */
    public void writeSysctl(String path, String value) {
        if (!path.matches("[a-z0-9_./-]+") || path.contains("..") || !value.matches("[A-Za-z0-9 _.-]*")) {
            throw new IllegalArgumentException("unexpected sysctl " + path + " = " + value);
        }
        exec("sh", "-c", "echo '" + value + "' > /proc/sys/" + path);
    }

    /** Creates or replaces one nftables table, atomically. */
    public void load(NftTable table) {
        nftScript(table.replaceScript());
    }

    /** Removes one nftables table if present. */
    public void remove(NftTable table) {
        nftScript(table.deleteScript());
    }

    /** Runs an {@code nft -f -} script in this namespace. */
    public void nftScript(String script) {
        exec(COMMAND_TIMEOUT, script, List.of(testbed.host().tool("nft"), "-f", "-"));
    }

    /** Runs {@code nft ARGS} in this namespace and returns what it printed. */
    public String nft(String... args) {
        List<String> argv = new ArrayList<>(List.of(testbed.host().tool("nft")));
        argv.addAll(List.of(args));
        return exec(COMMAND_TIMEOUT, null, argv).stdout();
    }

    /** Runs {@code ip -n NAME ARGS}. */
    public CommandResult ip(String... args) {
        List<String> argv = new ArrayList<>(List.of(testbed.host().tool("ip"), "-n", name));
        argv.addAll(List.of(args));
        return HostCommand.run(argv, null, COMMAND_TIMEOUT);
    }

    Testbed testbed() {
        return testbed;
    }

    static void stop(Process process) {
        if (!process.isAlive()) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(2, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return name;
    }
}
