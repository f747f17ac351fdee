package io.traverse.identity;

import static io.traverse.identity.RandomIdentities.endpoint;
import static io.traverse.identity.RandomIdentities.ip;
import static org.assertj.core.api.Assertions.assertThat;

import io.traverse.identity.LocalInterfaces.LocalAddress;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The target-address order of paper §3.2.2, with real netmasks. */
class AddressOrderingTest {
    private static final int PORT = 5000;

    /** Local interfaces from {@code address/prefix} strings. */
    private static LocalInterfaces local(String... cidrs) {
        List<LocalAddress> out = new ArrayList<>();
        for (String cidr : cidrs) {
            int slash = cidr.indexOf('/');
            out.add(new LocalAddress(ip(cidr.substring(0, slash)), Integer.parseInt(cidr.substring(slash + 1))));
        }
        return new LocalInterfaces(out);
    }

    private static NodeIdentity target(String... addresses) {
        NodeIdentity.Builder b = NodeIdentity.builder().id(NodeId.of("target"));
        for (String a : addresses) {
            b.address(endpoint(a, PORT));
        }
        return b.build();
    }

    private static List<String> order(NodeIdentity target, LocalInterfaces local) {
        return AddressOrdering.order(target, local).stream()
                .map(a -> IpLiterals.format(a.getAddress()))
                .toList();
    }

    @Test
    void publicOnlyHereMeansPublicBeforePrivate() {
        LocalInterfaces here = local("127.0.0.1/8", "198.18.0.5/24");
        assertThat(order(target("10.0.0.2", "192.168.1.20", "203.0.113.9"), here))
                .containsExactly("203.0.113.9", "10.0.0.2", "192.168.1.20");
    }

    @Test
    void sharedPrivateSubnetMeansPrivateFirst() {
        LocalInterfaces here = local("127.0.0.1/8", "192.168.1.10/24", "198.18.0.5/24");
        assertThat(order(target("203.0.113.9", "192.168.1.20"), here)).containsExactly("192.168.1.20", "203.0.113.9");

        // The same holds for a fast non-routed cluster network next to public Ethernet (the paper's Myrinet case).
        LocalInterfaces clusterNode = local("10.153.0.7/16", "198.18.0.5/24");
        assertThat(order(target("198.18.7.1", "10.153.0.8"), clusterNode)).containsExactly("10.153.0.8", "198.18.7.1");
    }

    @Test
    void samePrivateRangeButAnotherSubnetIsNotOurs() {
        // Both in 10/8, but the real netmask says 10.2.0.5 is another site's network: public first.
        LocalInterfaces here = local("10.1.0.5/16", "198.18.0.5/24");
        assertThat(order(target("10.2.0.5", "203.0.113.9"), here)).containsExactly("203.0.113.9", "10.2.0.5");
        // A wider local prefix does cover it.
        LocalInterfaces wide = local("10.1.0.5/8", "198.18.0.5/24");
        assertThat(order(target("203.0.113.9", "10.2.0.5"), wide)).containsExactly("10.2.0.5", "203.0.113.9");
    }

    @Test
    void onlyAnotherNetworksPrivateAddressesAreALongShot() {
        LocalInterfaces here = local("127.0.0.1/8", "10.10.0.2/24", "198.18.0.2/15");
        List<InetSocketAddress> lab = AddressOrdering.order(target("10.20.0.3"), here);
        assertThat(AddressOrdering.onlyOtherNetworksPrivate(lab, here)).isTrue();
        assertThat(AddressOrdering.onlyOtherNetworksPrivate(
                        AddressOrdering.order(target("10.20.0.3", "198.18.0.9"), here), here))
                .as("a public address may well answer")
                .isFalse();
        assertThat(AddressOrdering.onlyOtherNetworksPrivate(AddressOrdering.order(target("10.10.0.7"), here), here))
                .as("on one of our subnets")
                .isFalse();
        assertThat(AddressOrdering.onlyOtherNetworksPrivate(List.of(), here)).isFalse();
        assertThat(AddressOrdering.onlyOtherNetworksPrivate(List.of(endpoint("127.0.5.1", PORT)), here))
                .as("loopback is kept only for a node on this host")
                .isFalse();
    }

    @Test
    void differentPrivateRangesMeanPublicFirst() {
        LocalInterfaces here = local("127.0.0.1/8", "10.0.0.10/8", "198.18.0.5/24");
        assertThat(order(target("192.168.1.20", "203.0.113.9"), here)).containsExactly("203.0.113.9", "192.168.1.20");
        LocalInterfaces privateOnly = local("10.0.0.10/8");
        assertThat(order(target("192.168.1.20", "172.16.4.4", "203.0.113.9"), privateOnly))
                .containsExactly("203.0.113.9", "192.168.1.20", "172.16.4.4");
    }

    @Test
    void multiHomedBothSides() {
        LocalInterfaces here = local("127.0.0.1/8", "10.1.0.5/16", "192.168.7.3/24", "198.18.0.5/24", "fe80::5/64");
        NodeIdentity there = target(
                "169.254.0.9", "172.16.0.9", "127.0.0.1", "203.0.113.9", "10.9.0.1", "192.168.7.99", "2001:db8::9");
        assertThat(order(there, here))
                .containsExactly(
                        "192.168.7.99", // shares our 192.168.7.0/24
                        "203.0.113.9",
                        "2001:db8::9", // public, in the target's order
                        "172.16.0.9",
                        "10.9.0.1", // private networks of another site
                        "169.254.0.9"); // link-local last; its 127.0.0.1 is left out: the target is not on this host
    }

    @Test
    void loopbackFirstOnlyWhenTheTargetIsOnThisHost() {
        LocalInterfaces here = local("127.0.0.1/8", "192.168.7.3/24", "198.18.0.5/24");
        // The target shares our non-loopback address 198.18.0.5: it runs on this host.
        assertThat(order(target("198.18.0.5", "192.168.7.3", "127.0.0.1"), here))
                .containsExactly("127.0.0.1", "198.18.0.5", "192.168.7.3");
        // Loopback is all it offers: it can only be here.
        assertThat(order(target("127.0.0.1", "::1"), here)).containsExactly("127.0.0.1", "::1");
        // Another machine that also lists loopback: its 127.0.0.1 would reach this host, not the target.
        assertThat(order(target("127.0.0.1", "198.18.0.6", "10.3.3.3"), here))
                .containsExactly("198.18.0.6", "10.3.3.3");
        assertThat(AddressOrdering.isOnThisHost(target("127.0.0.1", "198.18.0.6"), here, null))
                .isFalse();
        assertThat(AddressOrdering.isOnThisHost(target("::1"), here, null)).isTrue();
    }

    @Test
    void oneSharedPrivateAddressDoesNotMakeTheSameHost() {
        // Another site reusing our private range: one address in common proves nothing.
        LocalInterfaces here = local("127.0.0.1/8", "10.0.0.2/24", "198.18.0.5/24");
        NodeIdentity elsewhere = target("10.0.0.2", "198.18.9.9", "127.0.0.1");
        assertThat(AddressOrdering.isOnThisHost(elsewhere, here, null)).isFalse();
        AddressOrdering.Candidates c = AddressOrdering.candidates(elsewhere, here, here, null);
        assertThat(c.order()).containsExactly(endpoint("198.18.9.9", PORT));
        assertThat(c.skipped())
                .containsExactly(
                        "10.0.0.2:" + PORT + " (an address of this host; the target runs elsewhere)",
                        "127.0.0.1:" + PORT + " (loopback of another host)");
        // Every address besides loopback ours: without host keys, that is this host.
        assertThat(AddressOrdering.isOnThisHost(target("10.0.0.2", "198.18.0.5", "127.0.0.1"), here, null))
                .isTrue();
    }

    private static NodeIdentity keyed(String hostKey, String... addresses) {
        NodeIdentity.Builder b = NodeIdentity.builder().id(NodeId.of("target")).hostKey(hostKey);
        for (String a : addresses) {
            b.address(endpoint(a, PORT));
        }
        return b.build();
    }

    @Test
    void hostKeysDecideWhereAddressesWouldGuess() {
        LocalInterfaces here = local("127.0.0.1/8", "10.0.0.2/24", "fd00::2/64");
        // Another network namespace of the same kernel with the very same addresses (the testbed's
        // overlapping sites): every address matches ours, yet none of them leads there.
        NodeIdentity twin = keyed("otherstack", "10.0.0.2", "fd00::2", "127.0.0.1");
        assertThat(AddressOrdering.isOnThisHost(twin, here, "thisstack")).isFalse();
        AddressOrdering.Candidates c = AddressOrdering.candidates(twin, here, here, "thisstack");
        assertThat(c.order()).isEmpty();
        assertThat(c.skipped()).hasSize(3);
        // The same key: loopback first, then the rest in rank order, nothing skipped.
        NodeIdentity neighbour = keyed("thisstack", "fd00::2", "10.0.0.2", "::1", "127.0.0.1");
        c = AddressOrdering.candidates(neighbour, here, here, "thisstack");
        assertThat(c.order())
                .extracting(a -> IpLiterals.format(a.getAddress()))
                .containsExactly("127.0.0.1", "::1", "fd00::2", "10.0.0.2");
        assertThat(c.skipped()).isEmpty();
        // A key on one side only: the address rule decides.
        assertThat(AddressOrdering.isOnThisHost(twin, here, null)).isTrue();
        assertThat(AddressOrdering.isOnThisHost(target("10.0.0.2", "127.0.0.1"), here, "thisstack"))
                .isTrue();
    }

    @Test
    void externalsAreTriedEvenWhenTheyAreOurs() {
        // A port forward on this very host (an SSH tunnel, the router namespace's own address) to a target elsewhere.
        LocalInterfaces here = local("127.0.0.1/8", "198.18.0.5/24");
        NodeIdentity forwarded = NodeIdentity.builder()
                .id(NodeId.of("far"))
                .hostKey("farstack")
                .address(endpoint("10.0.0.2", PORT))
                .external(endpoint("127.0.0.1", 2222))
                .external(endpoint("198.18.0.5", 6000))
                .build();
        AddressOrdering.Candidates c = AddressOrdering.candidates(forwarded, here, here, "thisstack");
        assertThat(c.order())
                .containsExactly(endpoint("198.18.0.5", 6000), endpoint("10.0.0.2", PORT), endpoint("127.0.0.1", 2222));
        assertThat(c.skipped()).isEmpty();
    }

    @Test
    void theOwnAddressCheckUsesEveryInterfaceOfTheHost() {
        // A node bound to 127.0.0.1 knows only that interface as its own; 10.0.0.2 is still this host's.
        LocalInterfaces bound = local("127.0.0.1/8");
        LocalInterfaces host = local("127.0.0.1/8", "10.0.0.2/24");
        AddressOrdering.Candidates c =
                AddressOrdering.candidates(keyed("farstack", "10.0.0.2", "198.18.9.9"), bound, host, "thisstack");
        assertThat(c.order()).containsExactly(endpoint("198.18.9.9", PORT));
    }

    @Test
    void loopbackInterfaceDoesNotMakeLoopbackTargetsOnLink() {
        LocalInterfaces here = local("127.0.0.1/8");
        assertThat(here.isOnLink(ip("127.0.0.5"))).isFalse();
        assertThat(here.owns(ip("127.0.0.1"))).isTrue();
        assertThat(here.owns(ip("127.0.0.5"))).isFalse();
    }

    @Test
    void externalsAreIncludedAndOrderedLikeTheRest() {
        LocalInterfaces here = local("127.0.0.1/8", "198.18.0.5/24");
        NodeIdentity behindNat = NodeIdentity.builder()
                .id(NodeId.of("nat"))
                .address(endpoint("10.0.0.2", PORT))
                .external(endpoint("203.0.113.7", 6000))
                .external(endpoint("10.0.0.2", PORT)) // repeated: tried once
                .build();
        assertThat(AddressOrdering.order(behindNat, here))
                .containsExactly(endpoint("203.0.113.7", 6000), endpoint("10.0.0.2", PORT));
    }

    @Test
    void randomTargetsArePermutedByRankAndStableWithinARank() {
        LocalInterfaces[] locals = {
            local("127.0.0.1/8", "198.18.0.5/24"),
            local(
                    "127.0.0.1/8",
                    "10.1.0.5/16",
                    "192.168.7.3/24",
                    "198.18.0.5/15",
                    "fd00::5/64",
                    "fe80::5/64",
                    "169.254.3.3/16"),
            local("10.0.0.10/8"),
            local("::1/128", "2001:db8::5/64"),
        };
        for (int n = 0; n < 2000; n++) {
            Random r = RandomIdentities.forCase(n);
            LocalInterfaces here = locals[r.nextInt(locals.length)];
            NodeIdentity.Builder b = NodeIdentity.builder().id(NodeId.random());
            int count = 1 + r.nextInt(8);
            for (int i = 0; i < count; i++) {
                InetAddress own =
                        here.addresses().get(r.nextInt(here.addresses().size())).address();
                boolean usable = !(own instanceof java.net.Inet6Address && own.isLinkLocalAddress());
                InetAddress a = usable && r.nextInt(4) == 0 ? own : RandomIdentities.ip(r);
                InetSocketAddress e = new InetSocketAddress(a, RandomIdentities.port(r));
                if (r.nextBoolean()) {
                    b.address(e);
                } else {
                    b.external(e);
                }
            }
            NodeIdentity target = b.build();
            boolean sameHost = modelOnThisHost(target, here);
            List<InetSocketAddress> candidates = target.directAddresses().stream()
                    .filter(a -> sameHost
                            || target.externals().contains(a)
                            || !(a.getAddress().isLoopbackAddress() || here.owns(a.getAddress())))
                    .toList();
            List<InetSocketAddress> ordered = AddressOrdering.order(target, here);
            String where =
                    RandomIdentities.describe(n) + ", local " + here + ", target " + target + ", ordered " + ordered;

            assertThat(ordered).as(where).containsExactlyInAnyOrderElementsOf(candidates);
            for (int i = 1; i < ordered.size(); i++) {
                int before = modelRank(ordered.get(i - 1), here, sameHost);
                int after = modelRank(ordered.get(i), here, sameHost);
                assertThat(before).as(where + ", ranks at " + i).isLessThanOrEqualTo(after);
                if (before == after) {
                    assertThat(candidates.indexOf(ordered.get(i - 1)))
                            .as(where + ", stable at " + i)
                            .isLessThan(candidates.indexOf(ordered.get(i)));
                }
            }
        }
    }

    /** The rule of the class documentation, written from the paper rather than from the code. */
    private static int modelRank(InetSocketAddress a, LocalInterfaces here, boolean sameHost) {
        InetAddress ip = a.getAddress();
        if (ip.isLoopbackAddress()) {
            return sameHost ? (ip instanceof java.net.Inet6Address ? 1 : 0) : 5;
        }
        if (ip.isLinkLocalAddress()) {
            return 6;
        }
        for (LocalAddress l : here.addresses()) {
            if (!l.address().isLoopbackAddress()
                    && Subnet.of(l.address(), l.prefixLength()).contains(ip)) {
                return 2;
            }
        }
        return AddressClass.of(ip).isSiteScoped() ? 4 : 3;
    }

    /** Without host keys: every interface address besides loopback is ours (an identity of externals only: no). */
    private static boolean modelOnThisHost(NodeIdentity target, LocalInterfaces here) {
        if (target.addresses().isEmpty()) {
            return target.externals().isEmpty();
        }
        return target.addresses().stream()
                .allMatch(a -> a.getAddress().isLoopbackAddress()
                        || here.addresses().stream().anyMatch(l -> l.address().equals(a.getAddress())));
    }

    @Test
    void forBindAddressNarrowsTheInterfaces() {
        LocalInterfaces all = local("127.0.0.1/8", "192.168.7.3/24", "fe80::5/64");
        assertThat(LocalInterfaces.forBindAddress(ip("0.0.0.0"), all)).isSameAs(all);
        assertThat(LocalInterfaces.forBindAddress(ip("192.168.7.3"), all).addresses())
                .containsExactly(new LocalAddress(ip("192.168.7.3"), 24));
        // 127.0.0.5 is routed by 127.0.0.1/8 without being assigned to an interface.
        assertThat(LocalInterfaces.forBindAddress(ip("127.0.0.5"), all).addresses())
                .containsExactly(new LocalAddress(ip("127.0.0.5"), 8));
        assertThat(LocalInterfaces.forBindAddress(ip("203.0.113.1"), all).addresses())
                .containsExactly(new LocalAddress(ip("203.0.113.1"), 32));
        assertThat(all.advertisable()).containsExactly(ip("127.0.0.1"), ip("192.168.7.3"));
    }
}
