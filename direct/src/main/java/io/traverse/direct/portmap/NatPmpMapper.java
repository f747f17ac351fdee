package io.traverse.direct.portmap;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * NAT-PMP (RFC 6886): the external address (opcode 0), then a TCP mapping (opcode 2) for the
 * host the request comes from; renewing repeats the request, deleting asks for lifetime 0.
 * Retransmission starts at the RFC's 250 ms and doubles, but stops after {@value #TRIES} tries.
 */
final class NatPmpMapper implements PortMapper {
    static final String NAME = "natpmp";
    private static final int TRIES = 4;
    private final UdpExchange server;
    /** Deletion runs at close and JVM exit: quicker retransmission, fewer tries (at most 1.75 s). */
    private final UdpExchange deletion;

    NatPmpMapper(InetAddress gateway) {
        this.server = new UdpExchange(gateway, Duration.ofMillis(250), TRIES);
        this.deletion = new UdpExchange(gateway, Duration.ofMillis(250), 3);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public MappedPort map(int internalPort, Duration lease) throws IOException {
        return request(internalPort, internalPort, lease);
    }

    @Override
    public MappedPort renew(MappedPort mapping, Duration lease) throws IOException {
        return request(mapping.internal().getPort(), mapping.external().getPort(), lease);
    }

    private MappedPort request(int internalPort, int suggestedPort, Duration lease) throws IOException {
        NatPmpCodec.ExternalAddressReply address = server.exchange(
                NatPmpCodec.externalAddressRequest(),
                NatPmpCodec::parseExternalAddressReply,
                "NAT-PMP external address");
        NatPmpCodec.MapReply reply = server.exchange(
                NatPmpCodec.mapTcpRequest(internalPort, suggestedPort, lease.toSeconds()),
                (data, length) -> {
                    NatPmpCodec.MapReply r = NatPmpCodec.parseMapReply(data, length);
                    if (r.internalPort() != internalPort) {
                        throw new PortMappingException(
                                "NAT-PMP reply is for internal port " + r.internalPort() + ", not " + internalPort);
                    }
                    return r;
                },
                "NAT-PMP mapping of TCP port " + internalPort);
        if (reply.lifetimeSeconds() == 0 || reply.externalPort() == 0) {
            throw new PortMappingException("NAT-PMP router granted no mapping (port " + reply.externalPort()
                    + ", lifetime " + reply.lifetimeSeconds() + " s)");
        }
        return new MappedPort(
                NAME,
                new InetSocketAddress(address.address(), reply.externalPort()),
                new InetSocketAddress(server.localAddressTowardsServer(), internalPort),
                Duration.ofSeconds(reply.lifetimeSeconds()),
                new byte[0]);
    }

    @Override
    public void unmap(MappedPort mapping) throws IOException {
        int internalPort = mapping.internal().getPort();
        deletion.exchange(
                NatPmpCodec.mapTcpRequest(internalPort, 0, 0),
                NatPmpCodec::parseMapReply,
                "NAT-PMP deletion of TCP port " + internalPort);
    }
}
