package io.traverse.identity;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;

/**
 * Who a node is and where it can be reached (paper §3.2.1 and §3.3.2): its id, the addresses of
 * its interfaces with the real listening port, external addresses (a NAT's public side, port
 * forwarded), and hints naming hubs that know the node.
 *
 * <p>An identity without an id is <em>partial</em>: it names a node by some of its addresses only,
 * as a user-supplied {@code host:port} does, and matches every node that has all those addresses
 * (paper §3.2.2).
 *
 * <p>A complete identity may also carry a {@link HostKey}: which kernel and network namespace the
 * node runs in, so that callers know whether its loopback and interface addresses are theirs.
 *
 * <p>The text form is made of hostname labels, so it can stand where a host name stands, even in
 * a URL: {@code tv1-<id>.k<hostkey>.a10-0-0-2p5000.afd00z1p5000.x203-0-113-7p6000.h198-18-0-1p17000}.
 * See {@link IdentityText}.
 */
public final class NodeIdentity {
    private final NodeId id;
    private final String hostKey;
    private final List<InetSocketAddress> addresses;
    private final List<InetSocketAddress> externals;
    private final List<InetSocketAddress> hubs;
    /** Formatted once: every handshake sends it. */
    private final String text;

    private NodeIdentity(
            NodeId id,
            String hostKey,
            List<InetSocketAddress> addresses,
            List<InetSocketAddress> externals,
            List<InetSocketAddress> hubs) {
        if (id == null && addresses.isEmpty() && externals.isEmpty()) {
            throw new IllegalArgumentException("a node identity needs an id or at least one address");
        }
        this.id = id;
        this.hostKey = hostKey;
        this.addresses = List.copyOf(addresses);
        this.externals = List.copyOf(externals);
        this.hubs = List.copyOf(hubs);
        this.text = IdentityText.format(this);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Parses the text form; the message of the exception names the offending part. */
    public static NodeIdentity parse(String text) {
        return IdentityText.parse(text);
    }

    /** True if the text is meant as a node identity (starts with the {@code tv1} marker), valid or not. */
    public static boolean looksLikeIdentity(String text) {
        return IdentityText.hasMarker(text);
    }

    public Optional<NodeId> id() {
        return Optional.ofNullable(id);
    }

    public boolean isPartial() {
        return id == null;
    }

    /** The network stack the node runs in (see {@link HostKey}); empty if it did not say. */
    public Optional<String> hostKey() {
        return Optional.ofNullable(hostKey);
    }

    /** Addresses of the node's own interfaces, each with the node's listening port. */
    public List<InetSocketAddress> addresses() {
        return addresses;
    }

    /** Addresses on a NAT or gateway in front of the node that forward to it. */
    public List<InetSocketAddress> externals() {
        return externals;
    }

    /** Hubs that know this node. */
    public List<InetSocketAddress> hubs() {
        return hubs;
    }

    /** Every address a direct connection may try: interface addresses, then external ones, without repeats. */
    public List<InetSocketAddress> directAddresses() {
        LinkedHashSet<InetSocketAddress> all = new LinkedHashSet<>(addresses);
        all.addAll(externals);
        return List.copyOf(all);
    }

    /**
     * The identity check of paper §3.2.2: true if this (complete) identity is the node that
     * {@code expected} names — the same id, or, for a partial identity, every one of its addresses
     * is among ours.
     */
    public boolean satisfies(NodeIdentity expected) {
        if (expected.id != null) {
            return expected.id.equals(id);
        }
        List<InetSocketAddress> ours = directAddresses();
        return ours.containsAll(expected.addresses) && ours.containsAll(expected.externals);
    }

    /** The same node seen with other hub hints. */
    public NodeIdentity withHubs(List<InetSocketAddress> newHubs) {
        return new NodeIdentity(id, hostKey, addresses, externals, newHubs);
    }

    /** The same node with other external addresses (e.g. ports mapped on its NAT come and go). */
    public NodeIdentity withExternals(List<InetSocketAddress> newExternals) {
        return new Builder()
                .id(id)
                .hostKey(hostKey)
                .addresses(addresses)
                .externals(newExternals)
                .hubs(hubs)
                .build();
    }

    /** The text form; {@link #parse} turns it back into an equal identity. */
    public String toText() {
        return text;
    }

    @Override
    public boolean equals(Object o) {
        // The text form is canonical: equal texts mean equal identities.
        return o instanceof NodeIdentity other && other.text.equals(text);
    }

    @Override
    public int hashCode() {
        return text.hashCode();
    }

    @Override
    public String toString() {
        return toText();
    }

    /** Collects the parts of an identity; addresses must be IP literals with ports (no DNS). */
    public static final class Builder {
        private NodeId id;
        private String hostKey;
        private final List<InetSocketAddress> addresses = new ArrayList<>();
        private final List<InetSocketAddress> externals = new ArrayList<>();
        private final List<InetSocketAddress> hubs = new ArrayList<>();

        private Builder() {}

        public Builder id(NodeId nodeId) {
            this.id = nodeId;
            return this;
        }

        /**
         * @param key a {@link HostKey}, or null for none
         * @throws IllegalArgumentException unless it is 1–32 of a-z and 0-9
         */
        public Builder hostKey(String key) {
            if (key != null && !HostKey.isWellFormed(key)) {
                throw new IllegalArgumentException(
                        "host key '" + key + "' must be 1-" + HostKey.MAX_LENGTH + " letters a-z or digits");
            }
            this.hostKey = key;
            return this;
        }

        public Builder address(InetSocketAddress address) {
            addresses.add(checked(address));
            return this;
        }

        public Builder addresses(List<InetSocketAddress> list) {
            list.forEach(this::address);
            return this;
        }

        public Builder external(InetSocketAddress address) {
            externals.add(checked(address));
            return this;
        }

        public Builder externals(List<InetSocketAddress> list) {
            list.forEach(this::external);
            return this;
        }

        public Builder hub(InetSocketAddress address) {
            hubs.add(checked(address));
            return this;
        }

        public Builder hubs(List<InetSocketAddress> list) {
            list.forEach(this::hub);
            return this;
        }

        public NodeIdentity build() {
            return new NodeIdentity(id, hostKey, addresses, externals, hubs);
        }

        private static InetSocketAddress checked(InetSocketAddress address) {
            if (address.isUnresolved()) {
                throw new IllegalArgumentException(
                        "identity addresses must be IP addresses, not " + address.getHostString());
            }
            if (address.getPort() < 1 || address.getPort() > 65535) {
                throw new IllegalArgumentException(
                        "port " + address.getPort() + " of " + address + " is not within 1-65535");
            }
            AddressClass cls = AddressClass.of(address.getAddress()); // rejects wildcard and multicast
            if (cls == AddressClass.LINK_LOCAL && address.getAddress() instanceof java.net.Inet6Address) {
                throw new IllegalArgumentException(
                        "link-local IPv6 address " + address + " needs a zone and cannot be part of an identity");
            }
            // Drop host names and zones (the JDK gives every interface address one): identities
            // compare by address and port only.
            return new InetSocketAddress(IpLiterals.parse(IpLiterals.format(address.getAddress())), address.getPort());
        }
    }
}
