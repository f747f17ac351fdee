package io.traverse.testbed;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.HashSet;
import java.util.Set;

/**
 * The IPv4 addresses of one network, handed out in order (first host address first) or claimed
 * explicitly; every address is checked to lie inside the network and to be used once only.
 */
final class AddressPool {
    private final int network;
    private final int prefixLength;
    private final Set<Integer> used = new HashSet<>();
    private int next;

    /** @param cidr e.g. {@code 10.0.0.0/24} */
    AddressPool(String cidr) {
        int slash = cidr.indexOf('/');
        if (slash < 0) {
            throw new IllegalArgumentException("network '" + cidr + "' must be ADDRESS/PREFIX, e.g. 10.0.0.0/24");
        }
        try {
            prefixLength = Integer.parseInt(cidr.substring(slash + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("prefix of network '" + cidr + "' is not a number");
        }
        if (prefixLength < 8 || prefixLength > 30) {
            throw new IllegalArgumentException("prefix of network '" + cidr + "' must be within 8-30");
        }
        int address = toInt(parse(cidr.substring(0, slash)));
        if ((address & ~mask()) != 0) {
            throw new IllegalArgumentException("network '" + cidr + "' has host bits set");
        }
        network = address;
        next = network + 1;
    }

    int prefixLength() {
        return prefixLength;
    }

    boolean contains(InetAddress address) {
        return address instanceof Inet4Address && (toInt(address) & mask()) == network;
    }

    /** The next unused host address. */
    synchronized Inet4Address next() {
        int broadcast = network | ~mask();
        while (next < broadcast && used.contains(next)) {
            next++;
        }
        if (next >= broadcast) {
            throw new TestbedException("network " + this + " has no free address left");
        }
        used.add(next);
        return fromInt(next++);
    }

    /** Takes this exact address. */
    synchronized Inet4Address claim(String text) {
        Inet4Address address = parse(text);
        int value = toInt(address);
        if (!contains(address) || value == network || value == (network | ~mask())) {
            throw new TestbedException(text + " is not a host address of network " + this);
        }
        if (!used.add(value)) {
            throw new TestbedException(text + " is already in use in network " + this);
        }
        return address;
    }

    /** {@code address/prefix} for {@code ip addr add}. */
    String withPrefix(InetAddress address) {
        return address.getHostAddress() + "/" + prefixLength;
    }

    @Override
    public String toString() {
        return fromInt(network).getHostAddress() + "/" + prefixLength;
    }

    private int mask() {
        return prefixLength == 0 ? 0 : -1 << (32 - prefixLength);
    }

    static Inet4Address parse(String text) {
        String[] parts = text.trim().split("\\.", -1);
        if (parts.length != 4) {
            throw new IllegalArgumentException("'" + text + "' is not an IPv4 address");
        }
        byte[] bytes = new byte[4];
        for (int i = 0; i < 4; i++) {
            int octet;
            try {
                octet = Integer.parseInt(parts[i]);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + text + "' is not an IPv4 address");
            }
            if (octet < 0 || octet > 255) {
                throw new IllegalArgumentException("'" + text + "' is not an IPv4 address");
            }
            bytes[i] = (byte) octet;
        }
        try {
            return (Inet4Address) InetAddress.getByAddress(bytes);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e); // four bytes always work
        }
    }

    private static int toInt(InetAddress address) {
        byte[] b = address.getAddress();
        return (b[0] & 0xff) << 24 | (b[1] & 0xff) << 16 | (b[2] & 0xff) << 8 | (b[3] & 0xff);
    }

    private static Inet4Address fromInt(int value) {
        try {
            return (Inet4Address) InetAddress.getByAddress(
                    new byte[] {(byte) (value >>> 24), (byte) (value >>> 16), (byte) (value >>> 8), (byte) value});
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }
}
