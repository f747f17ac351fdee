package io.traverse.testbed;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A site's router that also grants port mappings: miniupnpd (Debian {@code miniupnpd-nftables})
 * serving UPnP IGD, NAT-PMP and PCP on the site's network, with a private config, lease and pid
 * file in a temporary directory and the nft chains it fills.
 *
 * <p>miniupnpd refuses to map while its external address lies in a reserved range, and the
 * testbed's internet uses 198.18.0.0/15, which is one. So the router's public interface gets a
 * second, ordinary-looking address from {@value #EXTERNAL_NETWORK}, which exists only on the
 * testbed's internet bridge (no packet leaves the testbed's namespaces); public hosts that should
 * reach mapped ports get an address on that network too ({@link #reachableFrom}).
 *
 * <p>The daemon is stopped when the testbed closes (it runs in the router's namespace, which is
 * deleted with its tables); the temporary directory is removed then too.
 */
public final class PortMappingGateway {
    /** A public-looking network that exists only inside the testbed (see the class comment). */
    public static final String EXTERNAL_NETWORK = "11.200.0.0/24";

    private static final String EXTERNAL_PREFIX = "11.200.0.";
    private static final Duration READY_WAIT = Duration.ofSeconds(10);
    /** miniupnpd's own table and chains (its defaults): a filter chain for forwarding, and NAT chains. */
    private static final NftTable CHAINS = new NftTable("inet", "filter", """
              chain forward {
                type filter hook forward priority filter; policy accept;
                jump miniupnpd
              }
              chain miniupnpd {
              }
              chain prerouting {
                type nat hook prerouting priority dstnat; policy accept;
                jump prerouting_miniupnpd
              }
              chain postrouting {
                type nat hook postrouting priority srcnat; policy accept;
                jump postrouting_miniupnpd
              }
              chain prerouting_miniupnpd {
              }
              chain postrouting_miniupnpd {
              }
            """);

    private static final Pattern DNAT_PORT = Pattern.compile(
            // miniupnpd 2.3 matches the protocol by header byte: "@nh,72,8 0x6 th dport" (TCP); nft may also print "tcp
            // dport".
            "(?:@nh,72,8 0x6 th|tcp) dport (\\d+) dnat (?:ip )?to ([0-9.]+):(\\d+)");

    private final Site site;
    private final Inet4Address externalAddress;
    private final Path directory;
    private final Process daemon;
    private int nextPeer = 2;

    private PortMappingGateway(Site site, Inet4Address externalAddress, Path directory, Process daemon) {
        this.site = site;
        this.externalAddress = externalAddress;
        this.directory = directory;
        this.daemon = daemon;
    }

    /** Starts miniupnpd on {@code site}'s router and waits until it serves; the router keeps its NAT and firewall. */
    public static PortMappingGateway start(Site site) {
        NatRouter router = site.router();
        NetworkNamespace ns = router.namespace();
        Testbed testbed = ns.testbed();
        Path dir;
        try {
            dir = Files.createTempDirectory("tvb-miniupnpd-");
        } catch (IOException e) {
            throw new TestbedException("cannot make a directory for miniupnpd: " + e.getMessage(), e);
        }
        testbed.track(() -> deleteTree(dir));
        Inet4Address external = parse(EXTERNAL_PREFIX + "1");
        ns.addAddress(NatRouter.WAN, EXTERNAL_PREFIX + "1/24");
        ns.load(CHAINS);
        Path config = dir.resolve("miniupnpd.conf");
        String text = String.join(
                "\n",
                "ext_ifname=" + NatRouter.WAN,
                "ext_ip=" + external.getHostAddress(),
                "listening_ip=" + NatRouter.LAN,
                "http_port=5000",
                "enable_upnp=yes",
                "enable_natpmp=yes",
                "secure_mode=yes",
                "system_uptime=yes",
                "lease_file=" + dir.resolve("leases"),
                "uuid=" + UUID.randomUUID(),
                "allow 1024-65535 " + site.lan() + " 1024-65535",
                "deny 0-65535 0.0.0.0/0 0-65535",
                "");
        Path logFile = dir.resolve("miniupnpd.log");
        try {
            Files.writeString(config, text, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new TestbedException("cannot write " + config + ": " + e.getMessage(), e);
        }
        ProcessBuilder pb = new ProcessBuilder(
                        daemonPath(),
                        "-d",
                        "-f",
                        config.toString(),
                        "-P",
                        dir.resolve("miniupnpd.pid").toString())
                .redirectErrorStream(true)
                .redirectOutput(logFile.toFile());
        Process daemon = ns.start(pb);
        PortMappingGateway gateway = new PortMappingGateway(site, external, dir, daemon);
        gateway.awaitReady(logFile);
        return gateway;
    }

    /** Where Debian's {@code miniupnpd-nftables} puts the daemon. */
    public static String daemonPath() {
        for (String dir : List.of("/usr/sbin", "/usr/local/sbin", "/sbin")) {
            Path p = Path.of(dir, "miniupnpd");
            if (Files.isExecutable(p)) {
                return p.toString();
            }
        }
        throw new TestbedException("miniupnpd is not installed (Debian package miniupnpd-nftables)");
    }

    private void awaitReady(Path logFile) {
        long until = System.nanoTime() + READY_WAIT.toNanos();
        while (System.nanoTime() < until) {
            String log = log();
            if (log.contains("Listening for NAT-PMP/PCP traffic") && log.contains("HTTP listening on port")) {
                return;
            }
            if (!daemon.isAlive()) {
                throw new TestbedException("miniupnpd on " + site + " exited with " + daemon.exitValue() + ":\n" + log);
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new TestbedException("interrupted while starting miniupnpd");
            }
        }
        throw new TestbedException(
                "miniupnpd on " + site + " did not start within " + READY_WAIT.toSeconds() + " s:\n" + log());
    }

    /** The address miniupnpd reports as external and maps ports on. */
    public Inet4Address externalAddress() {
        return externalAddress;
    }

    public Site site() {
        return site;
    }

    /** Gives public {@code host} an address on {@value #EXTERNAL_NETWORK}, so it can reach mapped ports; returns it. */
    public synchronized Inet4Address reachableFrom(Host host) {
        String address = EXTERNAL_PREFIX + (nextPeer++);
        host.namespace().addAddress(host.interfaceName(), address + "/24");
        return parse(address);
    }

    /** The TCP mappings in force now, read from miniupnpd's DNAT chain: {@code externalPort -> internal ip:port}. */
    public List<Mapping> mappings() {
        Matcher m = DNAT_PORT.matcher(natRules());
        List<Mapping> out = new java.util.ArrayList<>();
        while (m.find()) {
            out.add(new Mapping(Integer.parseInt(m.group(1)), parse(m.group(2)), Integer.parseInt(m.group(3))));
        }
        return out;
    }

    /** miniupnpd's DNAT chain as {@code nft} lists it (for failure messages). */
    public String natRules() {
        return site.router().namespace().nft("list", "chain", "inet", CHAINS.name(), "prerouting_miniupnpd");
    }

    /** One DNAT rule of miniupnpd. */
    public record Mapping(int externalPort, Inet4Address internalAddress, int internalPort) {}

    /** What miniupnpd logged so far. */
    public String log() {
        try {
            return Files.readString(directory.resolve("miniupnpd.log"), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    public boolean isRunning() {
        return daemon.isAlive();
    }

    private static Inet4Address parse(String ip) {
        try {
            return (Inet4Address) InetAddress.getByName(ip);
        } catch (IOException e) {
            throw new IllegalArgumentException(ip, e);
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    @Override
    public String toString() {
        return "PortMappingGateway[" + site.label() + " " + externalAddress.getHostAddress() + "]";
    }
}
