package io.traverse.identity;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.Random;

/**
 * Seeded generators of addresses and identities for the randomized tests. Each test case builds
 * its own {@code new Random(seed + case)} so that a failing case can be rerun alone: the seed is
 * {@code -DtestSeed=N} or a fixed default, and every assertion message prints it.
 */
public final class RandomIdentities {
    /** The base seed of this run. */
    public static final long SEED = Long.getLong("testSeed", 0x7261766572L);

    private static final String ID_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789-";

    private RandomIdentities() {}

    /** The generator of case {@code n}; print {@link #describe} in assertion messages. */
    public static Random forCase(int n) {
        return new Random(SEED + n);
    }

    public static String describe(int n) {
        return "seed " + SEED + " case " + n + " (rerun with -DtestSeed=" + SEED + ")";
    }

    /** A unicast IPv4 address: never 0.0.0.0, never multicast. */
    public static InetAddress ipv4(Random r) {
        while (true) {
            byte[] b = new byte[4];
            switch (r.nextInt(5)) {
                case 0 -> b = new byte[] {10, (byte) r.nextInt(256), (byte) r.nextInt(256), (byte) r.nextInt(256)};
                case 1 -> b = new byte[] {(byte) 192, (byte) 168, (byte) r.nextInt(256), (byte) r.nextInt(256)};
                case 2 ->
                    b = new byte[] {(byte) 198, (byte) (18 + r.nextInt(2)), (byte) r.nextInt(256), (byte) r.nextInt(256)
                    };
                case 3 -> b = new byte[] {127, 0, 0, (byte) (1 + r.nextInt(254))};
                default -> r.nextBytes(b);
            }
            InetAddress a = of(b);
            if (!a.isAnyLocalAddress() && !a.isMulticastAddress()) {
                return a;
            }
        }
    }

    /**
     * A unicast IPv6 address that is not link-local, often with runs of zero groups so that every compression case
     * (leading, trailing, middle, several runs, single zero groups) comes up.
     */
    public static InetAddress ipv6(Random r) {
        while (true) {
            byte[] b = new byte[16];
            int shape = r.nextInt(6);
            if (shape == 0) {
                r.nextBytes(b); // dense
            } else if (shape == 1) {
                b[15] = (byte) (1 + r.nextInt(255)); // ::N
            } else if (shape == 2) {
                b[0] = (byte) 0xfd; // fdXX:: trailing zeros
                b[1] = (byte) r.nextInt(256);
            } else {
                for (int g = 0; g < 8; g++) {
                    if (r.nextInt(3) > 0) {
                        continue; // a zero group
                    }
                    int value = r.nextBoolean() ? 1 + r.nextInt(0xffff) : 1 + r.nextInt(15);
                    b[2 * g] = (byte) (value >> 8);
                    b[2 * g + 1] = (byte) value;
                }
                if (shape == 3) {
                    b[0] = 0x20;
                    b[1] = 0x01;
                    b[2] = 0x0d;
                    b[3] = (byte) 0xb8; // 2001:db8::/32
                } else if (shape == 4) {
                    b[0] = (byte) 0xfd; // unique local
                }
            }
            InetAddress a = of(b);
            // Link-local IPv6 needs a zone, which an identity cannot carry: the builder refuses it.
            if (!a.isAnyLocalAddress()
                    && !a.isMulticastAddress()
                    && !(a instanceof Inet6Address && a.isLinkLocalAddress())) {
                return a;
            }
        }
    }

    public static InetAddress ip(Random r) {
        return r.nextInt(3) == 0 ? ipv6(r) : ipv4(r);
    }

    public static int port(Random r) {
        return switch (r.nextInt(4)) {
            case 0 -> 1;
            case 1 -> 65535;
            default -> 1 + r.nextInt(65535);
        };
    }

    public static InetSocketAddress endpoint(Random r) {
        return new InetSocketAddress(ip(r), port(r));
    }

    /** A configured id: 1-40 of [a-z0-9-], not starting or ending with '-'. */
    public static String configuredId(Random r) {
        int length = 1 + r.nextInt(NodeId.MAX_LENGTH);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < length; i++) {
            char c = ID_CHARS.charAt(r.nextInt(ID_CHARS.length()));
            if (c == '-' && (i == 0 || i == length - 1)) {
                c = 'q';
            }
            sb.append(c);
        }
        return sb.toString();
    }

    /** A random id, a configured id, or none (a partial identity, then with at least one address). */
    public static NodeIdentity identity(Random r) {
        NodeIdentity.Builder b = NodeIdentity.builder();
        int idKind = r.nextInt(4);
        if (idKind == 0) {
            b.id(NodeId.random());
        } else if (idKind == 1) {
            b.id(NodeId.of(configuredId(r)));
        }
        int addresses = r.nextInt(5);
        int externals = r.nextInt(3);
        if (idKind >= 2 && addresses + externals == 0) {
            addresses = 1;
        }
        for (int i = 0; i < addresses; i++) {
            b.address(endpoint(r));
        }
        for (int i = 0; i < externals; i++) {
            b.external(endpoint(r));
        }
        int hubs = r.nextInt(3);
        for (int i = 0; i < hubs; i++) {
            b.hub(endpoint(r));
        }
        if (r.nextInt(3) == 0) {
            b.hostKey(HostKey.of("boot-" + r.nextInt(1000), "net:[" + r.nextInt(1000) + "]"));
        }
        return b.build();
    }

    public static InetAddress of(byte[] bytes) {
        try {
            return InetAddress.getByAddress(bytes);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(e);
        }
    }

    /** An IP literal parsed without DNS. */
    public static InetAddress ip(String literal) {
        return IpLiterals.parse(literal);
    }

    public static InetSocketAddress endpoint(String literal, int port) {
        return new InetSocketAddress(IpLiterals.parse(literal), port);
    }
}
