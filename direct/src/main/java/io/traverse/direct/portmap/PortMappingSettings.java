package io.traverse.direct.portmap;

import io.traverse.TraverseConfig;
import io.traverse.config.ConfigValues;
import io.traverse.config.ModuleKey;
import io.traverse.identity.IpLiterals;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The port-mapping keys the direct module declares, and their values for one node.
 *
 * @param on whether the node asks its NAT router to map its listening port ({@code traverse.portmap})
 * @param protocols {@code upnp}, {@code pcp}, {@code natpmp} in the order to try them
 * @param lease the lease asked for each mapping
 * @param gateway the router PCP and NAT-PMP ask; empty: the default gateway
 */
public record PortMappingSettings(boolean on, List<String> protocols, Duration lease, Optional<InetAddress> gateway) {
    private static final List<String> PROTOCOL_NAMES = List.of(UpnpIgdMapper.NAME, PcpMapper.NAME, NatPmpMapper.NAME);

    public static final ModuleKey<Boolean> PORTMAP = ModuleKey.of(
            "traverse.portmap",
            "false",
            "true or false: ask the NAT router in front of this node to map its listening port (UPnP IGD, PCP, NAT-PMP) and advertise the mapped address",
            ConfigValues::bool);
    public static final ModuleKey<List<String>> PROTOCOLS = ModuleKey.of(
            "traverse.portmap.protocols",
            "upnp,pcp,natpmp",
            "a comma-separated list of upnp, pcp and natpmp in the order to try them; the first that maps the port is kept",
            PortMappingSettings::parseProtocols);
    public static final ModuleKey<Duration> LEASE = ModuleKey.of(
            "traverse.portmap.lease",
            "1h",
            "a duration from 1m to 24h such as 1h: the lease asked for each mapping; it is renewed at half of what the router granted",
            PortMappingSettings::parseLease);
    public static final ModuleKey<Optional<InetAddress>> GATEWAY = ModuleKey.of(
            "traverse.portmap.gateway",
            "",
            "an IP address: the router asked by PCP and NAT-PMP (empty: the default gateway of the routing table)",
            v -> v.isEmpty() ? Optional.empty() : Optional.of(IpLiterals.parse(v)));

    public PortMappingSettings {
        protocols = List.copyOf(protocols);
    }

    /** The node's values of these keys, each checked when it was set. */
    public static PortMappingSettings of(TraverseConfig config) {
        return new PortMappingSettings(
                config.get(PORTMAP), config.get(PROTOCOLS), config.get(LEASE), config.get(GATEWAY));
    }

    private static List<String> parseProtocols(String v) {
        List<String> out = ConfigValues.names(v);
        for (String name : out) {
            if (!PROTOCOL_NAMES.contains(name)) {
                throw new IllegalArgumentException("'" + name + "' is not a port-mapping protocol");
            }
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("the protocol list is empty");
        }
        return out;
    }

    private static Duration parseLease(String v) {
        Duration d = ConfigValues.duration(v);
        if (d.compareTo(Duration.ofMinutes(1)) < 0 || d.compareTo(Duration.ofHours(24)) > 0) {
            throw new IllegalArgumentException("the lease must be from 1m to 24h");
        }
        return d;
    }
}
