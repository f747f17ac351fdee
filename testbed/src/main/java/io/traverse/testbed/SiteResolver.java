package io.traverse.testbed;

import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A site's DNS resolver on its router, in one of two kinds a user meets:
 * <ul>
 *   <li>{@link #answering}: Debian's dnsmasq answers the names it is given, and NXDOMAIN for
 *       every other, at once;</li>
 *   <li>{@link #silent}: queries to the router are dropped, as in locked-down networks whose
 *       firewalls let no DNS out; a resolver then answers only after its timeout (2 × 5 s).</li>
 * </ul>
 * {@link #serve(Host)} makes a host of the site use it. The testbed stops dnsmasq when it closes.
 */
public final class SiteResolver implements AutoCloseable {
    private static final String TABLE = "tvb-dns";
    private static final List<Path> BINARIES = List.of(Path.of("/usr/sbin/dnsmasq"), Path.of("/usr/bin/dnsmasq"));
    private static final Pattern DROPPED = Pattern.compile("packets (\\d+)");

    private final NatRouter router;
    /** Null for a silent resolver. */
    private final NamespaceDaemon dnsmasq;

    private SiteResolver(NatRouter router, NamespaceDaemon dnsmasq) {
        this.router = router;
        this.dnsmasq = dnsmasq;
    }

    /** A dnsmasq on {@code site}'s router that knows {@code names} (a name and its IPv4 address) and nothing else. */
    public static SiteResolver answering(Site site, Map<String, InetAddress> names) {
        Path binary = BINARIES.stream()
                .filter(Files::isExecutable)
                .findFirst()
                .orElseThrow(() -> new TestbedException("dnsmasq is not installed (Debian package dnsmasq-base)"));
        NatRouter router = site.router();
        Path directory = NamespaceDaemon.newDirectory("dnsmasq");
        List<String> argv = new ArrayList<>(List.of(
                binary.toString(),
                "--keep-in-foreground",
                "--conf-file=/dev/null",
                "--no-resolv",
                "--no-hosts",
                "--pid-file=",
                "--user=root",
                "--bind-interfaces",
                "--listen-address=" + router.lanAddress().getHostAddress(),
                "--log-queries",
                "--log-facility=" + directory.resolve("dnsmasq.log")));
        names.forEach((name, address) -> argv.add("--address=/" + name + "/" + address.getHostAddress()));
        argv.add("--address=/#/"); // everything else: NXDOMAIN, at once
        NamespaceDaemon daemon = new NamespaceDaemon(
                router.namespace(), "dnsmasq", directory, argv, NamespaceDaemon.Listens.UDP, 53, "dnsmasq.log");
        SiteResolver resolver = router.namespace().testbed().track(new SiteResolver(router, daemon));
        daemon.start();
        return resolver;
    }

    /** A resolver address on {@code site}'s router where every query is dropped (and counted). */
    public static SiteResolver silent(Site site) {
        NatRouter router = site.router();
        router.namespace()
                .load(new NftTable(
                        "inet",
                        TABLE,
                        "  counter dropped { }\n"
                                + "  chain input {\n"
                                + "    type filter hook input priority filter - 10; policy accept;\n"
                                + "    udp dport 53 counter name \"dropped\" drop\n"
                                + "    tcp dport 53 counter name \"dropped\" drop\n"
                                + "  }\n"));
        return new SiteResolver(router, null);
    }

    /** Makes {@code host} (at this site) ask this resolver. */
    public void serve(Host host) {
        host.namespace().useNameserver(router.lanAddress());
    }

    /** Queries a silent resolver dropped so far (packets: a lookup of A and AAAA, tried twice, is four). */
    public long dropped() {
        if (dnsmasq != null) {
            throw new IllegalStateException("an answering resolver drops nothing");
        }
        String listing = router.namespace().nft("list", "counter", "inet", TABLE, "dropped");
        Matcher m = DROPPED.matcher(listing);
        if (!m.find()) {
            throw new TestbedException("unexpected counter listing in " + router.namespace() + ": " + listing);
        }
        return Long.parseLong(m.group(1));
    }

    /** What an answering resolver logged: its queries and answers. */
    public String log() {
        return dnsmasq == null ? "" : dnsmasq.log();
    }

    @Override
    public void close() {
        if (dnsmasq != null) {
            dnsmasq.close(); // a silent resolver's table goes with the router's namespace
        }
    }

    @Override
    public String toString() {
        return "SiteResolver[" + (dnsmasq == null ? "silent" : "dnsmasq") + " at "
                + router.lanAddress().getHostAddress() + "]";
    }
}
