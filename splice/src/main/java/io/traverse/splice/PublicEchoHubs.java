package io.traverse.splice;

import io.traverse.HubDirectory;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Where else to ask for the endpoint echo when this node's own hub sees only its private side (the
 * hub runs on the node's site network): hubs of the network, from the hub directory, that
 * advertise a public address, nearest first. Such a hub sees the node's connection after its NAT
 * (or from its own public interface), which is what a peer elsewhere must send SYNs to.
 */
final class PublicEchoHubs {
    /** Hubs tried at most per search: a dropping firewall costs a whole echo timeout each. */
    static final int MAX_CANDIDATES = 4;
    /** How long one candidate's echo may take: it is a connect and a few bytes, in the background. */
    static final Duration ECHO_TIMEOUT = Duration.ofSeconds(1);

    private PublicEchoHubs() {}

    /** True if a peer elsewhere on the internet could send to {@code address}. */
    static boolean isPublic(InetAddress address) {
        if (address.isSiteLocalAddress()
                || address.isLoopbackAddress()
                || address.isLinkLocalAddress()
                || address.isAnyLocalAddress()
                || address.isMulticastAddress()) {
            return false;
        }
        byte[] a = address.getAddress();
        if (address instanceof Inet4Address) {
            return !((a[0] & 0xff) == 100 && (a[1] & 0xc0) == 64); // 100.64.0.0/10: carrier-grade NAT
        }
        return !(address instanceof Inet6Address) || (a[0] & 0xfe) != 0xfc; // fc00::/7: unique local
    }

    /**
     * One public address per hub, nearest hub first, at most {@code max}; never {@code linkHub}
     * itself (its echo has shown a private address already).
     */
    static List<InetSocketAddress> candidates(List<HubDirectory.Hub> hubs, InetSocketAddress linkHub, int max) {
        List<HubDirectory.Hub> nearestFirst = new ArrayList<>(hubs);
        nearestFirst.sort(Comparator.comparingInt(HubDirectory.Hub::hops));
        List<InetSocketAddress> out = new ArrayList<>();
        for (HubDirectory.Hub hub : nearestFirst) {
            if (out.size() >= max) {
                break;
            }
            for (InetSocketAddress address : hub.linkAddresses()) {
                if (!address.isUnresolved()
                        && !address.equals(linkHub)
                        && isPublic(address.getAddress())
                        && !out.contains(address)) {
                    out.add(address);
                    break;
                }
            }
        }
        return out;
    }

    /** The candidates from the hub directory, asked through the node's hub within {@code timeout}. */
    static SpliceEndpoints.EchoCandidates fromDirectory(HubDirectory directory, Duration timeout) {
        return linkHub -> {
            try {
                return candidates(
                        directory.hubs().get(timeout.toMillis(), TimeUnit.MILLISECONDS), linkHub, MAX_CANDIDATES);
            } catch (TimeoutException e) {
                throw new SocketTimeoutException(
                        "the hub directory did not list the hubs within " + timeout.toMillis() + " ms");
            } catch (ExecutionException e) {
                throw new IOException(
                        "the hub directory could not list the hubs: "
                                + e.getCause().getMessage(),
                        e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted listing the hubs");
            }
        };
    }
}
