package io.traverse.testbed;

import static org.assertj.core.api.Assertions.assertThat;

import io.traverse.VirtualSocketAddress;
import io.traverse.identity.NodeIdentity;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Port mapping against a real miniupnpd in the site's router, once per protocol (UPnP IGD, PCP,
 * NAT-PMP): a node behind the NAT with {@code traverse.portmap=true} gets its listening port
 * mapped and advertises the mapped address; a peer on the internet, which has no other way in,
 * connects to it directly with the data checked end to end; the mapping is gone from the router
 * after the node closes, and after a second node's JVM is ended with SIGTERM.
 */
@Timeout(120)
class PortMappingTest {
    private static final long BYTES = 1L << 20;
    private static final Duration MAPPED_WITHIN = Duration.ofSeconds(20);

    @RegisterExtension
    final FreshTestbed testbed = new FreshTestbed();

    @ParameterizedTest
    @ValueSource(strings = {"upnp", "pcp", "natpmp"})
    void mappedPortLetsAPeerOutsideConnectDirectlyAndIsRemovedAtCloseAndAtSigterm(String protocol) {
        Site home = testbed.get().site("home", "10.0.7.0/24");
        PortMappingGateway gateway = PortMappingGateway.start(home);
        Host nodeHost = home.host("n");
        Host peerHost = testbed.get().internet().host("peer");
        gateway.reachableFrom(peerHost);
        NodeSettings mapped = NodeSettings.create()
                .set("traverse.portmap", "true")
                .set("traverse.portmap.protocols", protocol)
                .set("traverse.modules", "direct")
                .set("traverse.discovery", "false");
        RunningNode peer = RunningNode.start(
                peerHost,
                NodeSettings.create().set("traverse.modules", "direct").set("traverse.discovery", "false"));

        // close(): the node deletes its mapping.
        RunningNode first = RunningNode.start(nodeHost, mapped);
        NodeIdentity advertised = awaitMappedIdentity(first, gateway);
        VirtualSocketAddress unmapped = new VirtualSocketAddress(
                advertised.withExternals(List.of()), first.address().getPort());
        assertThat(peer.connect(unmapped, BYTES, Duration.ofSeconds(3)).ok())
                .as("without the mapped address the peer has no way in")
                .isFalse();
        TransferResult through = peer.connect(
                new VirtualSocketAddress(advertised, first.address().getPort()), BYTES, Duration.ofSeconds(10));
        assertThat(through.ok())
                .as(() -> through + "\nnode log:\n" + first.recentLog())
                .isTrue();
        assertThat(through.module()).isEqualTo("direct");
        assertThat(through.bytes()).isEqualTo(BYTES);
        assertThat(through.servedBy()).isEqualTo(first.nodeId());
        first.close();
        assertThat(gateway.mappings())
                .as("miniupnpd's mappings after the node closed")
                .isEmpty();

        // SIGTERM: the JVM's shutdown hook deletes the mapping.
        RunningNode second = RunningNode.start(nodeHost, mapped);
        awaitMappedIdentity(second, gateway);
        second.terminate(Duration.ofSeconds(15));
        assertThat(gateway.mappings())
                .as("miniupnpd's mappings after the node's JVM got SIGTERM")
                .isEmpty();
        assertThat(gateway.isRunning()).isTrue();
    }

    /** Waits until the node advertises the router's external address with a port miniupnpd maps to the node's listening port. */
    private static NodeIdentity awaitMappedIdentity(RunningNode node, PortMappingGateway gateway) {
        NodeIdentity[] seen = new NodeIdentity[1];
        Awaitility.await()
                .atMost(MAPPED_WITHIN)
                .pollInterval(Duration.ofMillis(100))
                .untilAsserted(() -> {
                    NodeIdentity id = node.identity();
                    seen[0] = id;
                    assertThat(id.externals())
                            .as(() -> "externals of " + id + "\nnode log:\n" + node.recentLog() + "\nminiupnpd log:\n"
                                    + gateway.log())
                            .isNotEmpty();
                });
        NodeIdentity id = seen[0];
        int listening = id.addresses().get(0).getPort();
        InetSocketAddress external = id.externals().get(0);
        assertThat(external.getAddress()).isEqualTo(gateway.externalAddress());
        List<PortMappingGateway.Mapping> rules = gateway.mappings();
        assertThat(rules)
                .as(() -> "miniupnpd's mappings, from\n" + gateway.natRules())
                .containsExactly(new PortMappingGateway.Mapping(
                        external.getPort(), node.host().address(), listening));
        return id;
    }
}
