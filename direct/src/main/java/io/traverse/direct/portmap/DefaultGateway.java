package io.traverse.direct.portmap;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The IPv4 default gateway, where PCP and NAT-PMP servers live (RFC 6886 §3.1, RFC 6887 §8.1).
 * Java has no API for the routing table, so this reads Linux's {@code /proc/net/route}; elsewhere
 * set {@code traverse.portmap.gateway}.
 */
final class DefaultGateway {
    private static final Path ROUTES = Path.of("/proc/net/route");

    private DefaultGateway() {}

    static Optional<InetAddress> find() {
        try {
            return fromRouteTable(Files.readAllLines(ROUTES));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** Parses {@code /proc/net/route}: the first up route to 0.0.0.0/0 with a gateway (hex, host byte order: little-endian). */
    static Optional<InetAddress> fromRouteTable(List<String> lines) {
        for (String line : lines.subList(Math.min(1, lines.size()), lines.size())) {
            String[] f = line.trim().split("\\s+");
            if (f.length < 8 || !f[1].equals("00000000") || !f[7].equals("00000000")) {
                continue;
            }
            int flags = Integer.parseInt(f[3], 16);
            long gw = Long.parseLong(f[2], 16);
            if ((flags & 0x3) != 0x3 || gw == 0) { // RTF_UP | RTF_GATEWAY
                continue;
            }
            byte[] ip = {(byte) gw, (byte) (gw >> 8), (byte) (gw >> 16), (byte) (gw >> 24)};
            try {
                return Optional.of((Inet4Address) InetAddress.getByAddress(ip));
            } catch (java.net.UnknownHostException e) {
                return Optional.empty();
            }
        }
        return Optional.empty();
    }
}
