package io.traverse.direct.portmap;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * PCP (RFC 6887) MAP requests for TCP: a random nonce per port, repeated when renewing
 * (suggesting the external address and port already held), when mapping again and when deleting
 * (lifetime 0).
 * Retransmission starts at the RFC's IRT of 3 s and doubles, but stops after {@value #TRIES} tries.
 */
final class PcpMapper implements PortMapper {
    static final String NAME = "pcp";
    private static final int TRIES = 3;
    private static final SecureRandom RANDOM = new SecureRandom();
    private final UdpExchange server;
    /** Deletion runs at close and JVM exit: quicker retransmission, fewer tries (at most 1.75 s). */
    private final UdpExchange deletion;

    private final Map<Integer, byte[]> nonces = new ConcurrentHashMap<>();

    PcpMapper(InetAddress gateway) {
        this(new InetSocketAddress(gateway, UdpExchange.SERVER_PORT));
    }

    /** A PCP server at {@code server} (tests: a scripted one on loopback). */
    PcpMapper(InetSocketAddress server) {
        this.server = new UdpExchange(server, Duration.ofSeconds(3), TRIES);
        this.deletion = new UdpExchange(server, Duration.ofMillis(250), 3);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public MappedPort map(int internalPort, Duration lease) throws IOException {
        // One nonce per port for this mapper's life: mapping again after a renewal that got no
        // answer must repeat it, since the router refuses a request for a port it still maps under
        // another nonce (NOT_AUTHORIZED, RFC 6887 §11.3) until that mapping's lease ends.
        byte[] nonce = nonces.computeIfAbsent(internalPort, p -> {
            byte[] fresh = new byte[PcpCodec.NONCE_LENGTH];
            RANDOM.nextBytes(fresh);
            return fresh;
        });
        return request(nonce, internalPort, internalPort, null, lease);
    }

    @Override
    public MappedPort renew(MappedPort mapping, Duration lease) throws IOException {
        return request(
                mapping.nonce(),
                mapping.internal().getPort(),
                mapping.external().getPort(),
                mapping.externalAddress(),
                lease);
    }

    private MappedPort request(
            byte[] nonce, int internalPort, int suggestedPort, InetAddress suggestedAddress, Duration lease)
            throws IOException {
        InetAddress client = server.localAddressTowardsServer();
        byte[] request =
                PcpCodec.mapRequest(client, nonce, internalPort, suggestedPort, suggestedAddress, lease.toSeconds());
        PcpCodec.MapResponse r = server.exchange(
                request,
                (data, length) -> {
                    PcpCodec.MapResponse parsed = PcpCodec.parseMapResponse(data, length, nonce);
                    if (parsed.internalPort() != internalPort) {
                        throw new PortMappingException(
                                "PCP response is for internal port " + parsed.internalPort() + ", not " + internalPort);
                    }
                    return parsed;
                },
                "PCP mapping of TCP port " + internalPort);
        if (r.lifetimeSeconds() == 0
                || r.externalPort() == 0
                || r.externalAddress().isAnyLocalAddress()) {
            throw new PortMappingException("PCP router granted no usable mapping ("
                    + r.externalAddress().getHostAddress() + ":" + r.externalPort() + ", lifetime "
                    + r.lifetimeSeconds() + " s)");
        }
        return new MappedPort(
                NAME,
                new InetSocketAddress(r.externalAddress(), r.externalPort()),
                new InetSocketAddress(client, internalPort),
                Duration.ofSeconds(r.lifetimeSeconds()),
                nonce.clone());
    }

    @Override
    public void unmap(MappedPort mapping) throws IOException {
        byte[] request = PcpCodec.mapRequest(
                mapping.internal().getAddress(),
                mapping.nonce(),
                mapping.internal().getPort(),
                mapping.external().getPort(),
                mapping.externalAddress(),
                0);
        deletion.exchange(
                request,
                (data, length) -> PcpCodec.parseMapResponse(data, length, mapping.nonce()),
                "PCP deletion of TCP port " + mapping.internal().getPort());
    }
}
