package io.traverse.testbed;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Counts TCP connection attempts (SYN segments) arriving for one port of a namespace, with an
 * nftables counter: proof that a connection really reached a machine, whatever the
 * application on it answered.
 */
public final class ConnectionCounter {
    private static final Pattern PACKETS = Pattern.compile("packets (\\d+)");

    private final NetworkNamespace namespace;
    private final NftTable table;

    private ConnectionCounter(NetworkNamespace namespace, NftTable table) {
        this.namespace = namespace;
        this.table = table;
    }

    /** Starts counting SYNs to TCP {@code port} arriving in {@code namespace} (from zero). */
    public static ConnectionCounter install(NetworkNamespace namespace, int port) {
        return install(namespace, port, "", "tvb-count-" + port);
    }

    /** Like {@link #install(NetworkNamespace, int)}, counting only IPv4 SYNs that arrive with IP TTL {@code ttl}. */
    public static ConnectionCounter installForTtl(NetworkNamespace namespace, int port, int ttl) {
        if (ttl < 0 || ttl > 255) {
            throw new IllegalArgumentException("TTL " + ttl + " is not within 0-255");
        }
        return install(namespace, port, "ip ttl " + ttl + " ", "tvb-count-" + port + "-ttl" + ttl);
    }

    private static ConnectionCounter install(NetworkNamespace namespace, int port, String match, String name) {
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port " + port + " is not within 1-65535");
        }
        NftTable table = new NftTable("inet", name, """
                  counter syn {
                  }
                  chain input {
                    type filter hook input priority -200; policy accept;
                    %stcp dport %d tcp flags & (fin | syn | rst | ack) == syn counter name "syn"
                  }
                """.formatted(match, port));
        namespace.load(table);
        return new ConnectionCounter(namespace, table);
    }

    /** SYNs counted so far (a retransmitted SYN counts again). */
    public long count() {
        String listing = namespace.nft("list", "counter", table.family(), table.name(), "syn");
        Matcher m = PACKETS.matcher(listing);
        if (!m.find()) {
            throw new TestbedException("unexpected counter listing in " + namespace + ": " + listing);
        }
        return Long.parseLong(m.group(1));
    }

    /** Stops counting. */
    public void remove() {
        namespace.remove(table);
    }
}
