package io.traverse.identity;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.Arrays;
import java.util.Objects;

/** An IP network in CIDR form ({@code 10.0.0.0/8}); a single address is a network of full length. */
public final class Subnet {
    private final byte[] network;
    private final int prefixLength;

    private Subnet(byte[] network, int prefixLength) {
        this.network = network;
        this.prefixLength = prefixLength;
    }

    /** The network that {@code address/prefixLength} belongs to. */
    public static Subnet of(InetAddress address, int prefixLength) {
        byte[] bytes = address.getAddress();
        if (prefixLength < 0 || prefixLength > bytes.length * 8) {
            throw new IllegalArgumentException(
                    "prefix length " + prefixLength + " out of range for " + address.getHostAddress());
        }
        return new Subnet(mask(bytes, prefixLength), prefixLength);
    }

    /**
     * Parses {@code ADDRESS/PREFIX} or a lone address literal (never a host name: no DNS here).
     *
     * @throws IllegalArgumentException naming the part that is wrong
     */
    public static Subnet parse(String text) {
        String trimmed = text.trim();
        int slash = trimmed.indexOf('/');
        String addressPart = slash < 0 ? trimmed : trimmed.substring(0, slash);
        InetAddress address = IpLiterals.parse(addressPart);
        int max = address.getAddress().length * 8;
        int prefix = max;
        if (slash >= 0) {
            String prefixPart = trimmed.substring(slash + 1);
            try {
                prefix = Integer.parseInt(prefixPart);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(
                        "prefix length '" + prefixPart + "' in '" + text + "' is not a number");
            }
            if (prefix < 0 || prefix > max) {
                throw new IllegalArgumentException(
                        "prefix length " + prefix + " in '" + text + "' is not within 0-" + max);
            }
        }
        return of(address, prefix);
    }

    public boolean contains(InetAddress address) {
        byte[] bytes = address.getAddress();
        if (bytes.length != network.length) {
            return false;
        }
        return Arrays.equals(mask(bytes, prefixLength), network);
    }

    public boolean isIpv4() {
        return network.length == 4;
    }

    public int prefixLength() {
        return prefixLength;
    }

    private static byte[] mask(byte[] bytes, int prefixLength) {
        byte[] out = bytes.clone();
        for (int i = 0; i < out.length; i++) {
            int bitsLeft = prefixLength - i * 8;
            if (bitsLeft <= 0) {
                out[i] = 0;
            } else if (bitsLeft < 8) {
                out[i] &= (byte) (0xff << (8 - bitsLeft));
            }
        }
        return out;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Subnet other && other.prefixLength == prefixLength && Arrays.equals(other.network, network);
    }

    @Override
    public int hashCode() {
        return Objects.hash(prefixLength, Arrays.hashCode(network));
    }

    @Override
    public String toString() {
        try {
            InetAddress address = InetAddress.getByAddress(network);
            String text = address instanceof Inet4Address ? address.getHostAddress() : IpLiterals.format(address);
            return text + "/" + prefixLength;
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException(e); // cannot happen: length is 4 or 16
        }
    }
}
