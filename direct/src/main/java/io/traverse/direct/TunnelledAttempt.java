package io.traverse.direct;

import io.traverse.connect.InBandEndOfStreamSocket;
import io.traverse.connect.SocketAttempt;
import io.traverse.connect.StaggeredRace;
import io.traverse.identity.IpLiterals;
import io.traverse.spi.ConnectOptions;
import io.traverse.spi.ConnectRequest;
import io.traverse.spi.HandshakeDialer.BeforeHandshake;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Set;

/**
 * One address through its tunnel: the tunnel's entrance is set up (or found up), then the same
 * TCP connect and identity handshake as a plain attempt, asking for in-band end-of-stream.
 */
final class TunnelledAttempt implements StaggeredRace.Attempt<Socket> {
    private final InetSocketAddress address;
    private final Tunnels.Tunnel tunnel;
    private final ConnectRequest request;
    private final byte[] handshake;
    private final WorkingAddresses workingTunnels;
    private final Set<String> preferredTunnels;
    private volatile HandshakeAttempt inner;
    private volatile boolean cancelled;
    /** Handed to the inner handshake attempt; may be null. */
    BeforeHandshake beforeHandshake;
    /** How its handshake proves keys; null: it proves none. */
    KeyProver keyProof;
    /** Where an ACCEPT that agreed on TLS records the socket; null: none asked. */
    io.traverse.connect.KernelTls kernelTls;

    TunnelledAttempt(
            InetSocketAddress address,
            Tunnels.Tunnel tunnel,
            ConnectRequest request,
            byte[] handshake,
            WorkingAddresses workingTunnels,
            Set<String> preferredTunnels) {
        this.address = address;
        this.tunnel = tunnel;
        this.request = request;
        this.handshake = handshake;
        this.workingTunnels = workingTunnels;
        this.preferredTunnels = preferredTunnels;
    }

    @Override
    public Socket run() throws IOException {
        InetSocketAddress entrance = tunnel.entrance(request.deadline());
        HandshakeAttempt attempt = new HandshakeAttempt(entrance, request, ConnectOptions.NONE, handshake, null) {
            @Override
            protected String where() {
                return TunnelledAttempt.this.describe();
            }
        };
        attempt.beforeHandshake = beforeHandshake;
        attempt.keyProof = keyProof;
        attempt.kernelTls = kernelTls;
        inner = attempt;
        if (cancelled) {
            throw new java.net.SocketException(describe() + ": cancelled");
        }
        Socket socket;
        try {
            socket = attempt.run();
        } catch (IOException e) {
            if (!cancelled) { // losing the race says nothing against the tunnel
                workingTunnels.failed(request.target(), address);
            }
            throw e;
        }
        workingTunnels.worked(request.target(), address);
        if (preferredTunnels.size() < DirectConnector.MAX_PLANNED_TARGETS) {
            preferredTunnels.add(tunnel.describe());
        }
        try {
            InBandEndOfStreamSocket wrapped = new InBandEndOfStreamSocket(socket);
            if (kernelTls != null) {
                kernelTls.moveAgreement(socket, wrapped); // TLS runs over the in-band framing
            }
            return wrapped;
        } catch (IOException e) {
            SocketAttempt.closeQuietly(socket);
            throw e;
        }
    }

    @Override
    public void confirm() throws IOException {
        HandshakeAttempt attempt = inner;
        if (attempt != null) {
            attempt.confirm();
        }
    }

    @Override
    public void cancel() {
        cancelled = true;
        HandshakeAttempt attempt = inner;
        if (attempt != null) {
            attempt.cancel();
        }
    }

    @Override
    public String describe() {
        return IpLiterals.formatEndpoint(address.getAddress(), address.getPort()) + " through " + tunnel.describe();
    }
}
