package io.traverse.direct;

import io.traverse.protocol.Deadline;
import io.traverse.spi.AttemptFailedException;
import io.traverse.spi.FailureScope;
import io.traverse.ssh.SshGateways;
import io.traverse.ssh.SshTunnelException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The SSH gateways as the tunnels core's dialer tries beside a target's plain addresses. A
 * gateway's refusal fails the path through it; closed gateways fail the module.
 */
final class SshTunnels implements Tunnels {
    private final SshGateways gateways;

    SshTunnels(SshGateways gateways) {
        this.gateways = gateways;
    }

    @Override
    public Optional<Tunnel> to(InetSocketAddress target) {
        return gateways.to(target).map(SshTunnel::new);
    }

    private record SshTunnel(SshGateways.Tunnel ssh) implements Tunnel {
        @Override
        public InetSocketAddress entrance(Deadline deadline) throws IOException {
            try {
                return ssh.entrance(deadline);
            } catch (SshTunnelException e) {
                throw new AttemptFailedException(
                        e.tunnelsClosed() ? FailureScope.MODULE : FailureScope.PATH, e.getMessage());
            }
        }

        @Override
        public String describe() {
            return ssh.describe();
        }

        @Override
        public CompletableFuture<?> setUpUnderWay() {
            return ssh.setUpUnderWay();
        }
    }
}
