package io.traverse.identity;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;

/**
 * Where an IP address can be reached from, as far as the address itself tells (paper §3.2.1–3.2.2).
 * The address-order heuristic and the identity uniqueness rule are built on this.
 */
public enum AddressClass {
    /** 127.0.0.0/8, ::1 — this host only. */
    LOOPBACK,
    /** 169.254.0.0/16, fe80::/10 — this link only. */
    LINK_LOCAL,
    /** RFC 1918: 10/8, 172.16/12, 192.168/16 — reused by every site. */
    PRIVATE,
    /** RFC 6598 shared address space 100.64/10 (carrier-grade NAT) — private to a provider. */
    SHARED,
    /** RFC 4193 unique local IPv6 fc00::/7 — private to a site. */
    UNIQUE_LOCAL,
    /** Everything else that is unicast, including the 198.18/15 benchmarking range the testbed uses. */
    PUBLIC;

    /** Classifies a unicast address; wildcard and multicast addresses are not addresses of a node. */
    public static AddressClass of(InetAddress address) {
        if (address.isAnyLocalAddress() || address.isMulticastAddress()) {
            throw new IllegalArgumentException(address.getHostAddress() + " is not a unicast address");
        }
        if (address.isLoopbackAddress()) {
            return LOOPBACK;
        }
        if (address.isLinkLocalAddress()) {
            return LINK_LOCAL;
        }
        byte[] b = address.getAddress();
        if (address instanceof Inet4Address) {
            int first = b[0] & 0xff;
            int second = b[1] & 0xff;
            if (first == 10 || (first == 172 && second >= 16 && second <= 31) || (first == 192 && second == 168)) {
                return PRIVATE;
            }
            if (first == 100 && second >= 64 && second <= 127) {
                return SHARED;
            }
            return PUBLIC;
        }
        if (address instanceof Inet6Address && (b[0] & 0xfe) == 0xfc) {
            return UNIQUE_LOCAL;
        }
        return PUBLIC;
    }

    /** True for addresses that mean different machines at different sites. */
    public boolean isSiteScoped() {
        return this == PRIVATE || this == SHARED || this == UNIQUE_LOCAL;
    }
}
