package io.traverse.testbed;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Inet4Address;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Makes a {@link Site} one whose only way out is a real HTTP proxy: Debian's tinyproxy
 * runs in the site router's namespace with a private configuration, listening on the router's
 * site address, and a table {@code inet tvb-proxy-only} in the router drops everything the
 * site's hosts send towards the internet. The proxy itself, running on the router, still reaches
 * the internet, so CONNECT through it is the one way out. Inbound is whatever the router's
 * {@link Firewall} says (a proxy-only site usually drops it too).
 *
 * <p>The testbed stops the proxy when it closes; {@link #close()} stops it earlier.
 */
public final class SiteHttpProxy implements AutoCloseable {
    /** The port tinyproxy listens on at the router's site address. */
    public static final int PORT = 3128;

    private static final String TABLE = "tvb-proxy-only";
    private static final List<Path> BINARIES = List.of(Path.of("/usr/bin/tinyproxy"), Path.of("/usr/sbin/tinyproxy"));

    private final NatRouter router;
    private final NamespaceDaemon tinyproxy;

    private SiteHttpProxy(NatRouter router, NamespaceDaemon tinyproxy) {
        this.router = router;
        this.tinyproxy = tinyproxy;
    }

    /**
     * Closes {@code site}'s way out except through a tinyproxy on its router that refuses CONNECT to
     * every port but 443 ({@code ConnectPort 443}), as many corporate proxies do: a hub on another
     * port is reachable only by plain HTTP requests through it (long-polling), never by a tunnel. It
     * answers a refused CONNECT with {@code 403 Access violation}.
     */
    public static SiteHttpProxy refusingConnect(Site site) {
        return start(site, "ConnectPort 443");
    }

    /**
     * Closes {@code site}'s way out except through a tinyproxy on its router, started with the given
     * extra configuration lines (for example {@code ConnectPort 443}, which refuses CONNECT to every
     * other port; without ConnectPort lines tinyproxy allows CONNECT to any port).
     */
    public static SiteHttpProxy start(Site site, String... extraLines) {
        Path binary = BINARIES.stream()
                .filter(Files::isExecutable)
                .findFirst()
                .orElseThrow(() -> new TestbedException("tinyproxy is not installed (Debian package tinyproxy-bin)"));
        NatRouter router = site.router();
        NetworkNamespace ns = router.namespace();
        ns.load(new NftTable(
                "inet",
                TABLE,
                "  chain forward {\n"
                        + "    type filter hook forward priority filter - 10; policy accept;\n"
                        + "    iifname \"" + NatRouter.LAN + "\" oifname != \"" + NatRouter.LAN + "\" drop\n"
                        + "  }\n"));
        Path directory = NamespaceDaemon.newDirectory("tinyproxy");
        try {
            StringBuilder conf = new StringBuilder()
                    .append("Port ")
                    .append(PORT)
                    .append('\n')
                    .append("Listen ")
                    .append(router.lanAddress().getHostAddress())
                    .append('\n')
                    .append("Timeout 600\nMaxClients 200\nLogLevel Connect\n")
                    .append("LogFile \"")
                    .append(directory.resolve("tinyproxy.log"))
                    .append("\"\n");
            for (String line : extraLines) {
                conf.append(line).append('\n');
            }
            Files.writeString(directory.resolve("tinyproxy.conf"), conf);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write tinyproxy's configuration", e);
        }
        NamespaceDaemon daemon = new NamespaceDaemon(
                ns,
                "tinyproxy",
                directory,
                List.of(
                        binary.toString(),
                        "-d",
                        "-c",
                        directory.resolve("tinyproxy.conf").toString()),
                NamespaceDaemon.Listens.TCP,
                PORT,
                "tinyproxy.log");
        SiteHttpProxy proxy = ns.testbed().track(new SiteHttpProxy(router, daemon));
        daemon.start();
        return proxy;
    }

    /**
     * Kills tinyproxy (SIGKILL: every connection through it ends at once, as in a crash) and starts
     * it again with the same configuration; returns once it listens again.
     */
    public void restart() {
        tinyproxy.restart();
    }

    /** Where the site's hosts find the proxy: {@code traverse.http.proxy} for a node there. */
    public String authority() {
        return address().getHostAddress() + ":" + PORT;
    }

    public Inet4Address address() {
        return router.lanAddress();
    }

    /** The CONNECT requests the proxy logged so far. */
    public long connectRequests() {
        return log().lines().filter(l -> l.contains(": CONNECT ")).count();
    }

    /** The proxy's log. */
    public String log() {
        return tinyproxy.log();
    }

    @Override
    public void close() {
        tinyproxy.close();
    }

    @Override
    public String toString() {
        return "SiteHttpProxy[tinyproxy at " + authority() + "]";
    }
}
