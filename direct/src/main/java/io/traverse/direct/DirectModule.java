package io.traverse.direct;

import io.traverse.direct.portmap.ListeningPortMapping;
import io.traverse.spi.AttemptFailedException;
import io.traverse.spi.ConnectRequest;
import io.traverse.spi.ConnectionAttempt;
import io.traverse.spi.ConnectionModule;
import io.traverse.spi.ModuleContext;
import io.traverse.ssh.SshGateways;

/**
 * Direct connections (paper §3.3.3 "Direct", built on §3.2.2): the target's own addresses, tried
 * in heuristic order as staggered parallel connects, each checked with the identity handshake.
 * The machinery lives in core's {@code DirectConnector}, because reverse dials back with it too.
 */
final class DirectModule implements ConnectionModule {
    private final ModuleContext context;
    /** The listening port mapped on the NAT router (traverse.portmap), or null. */
    private final ListeningPortMapping portMapping;
    /** Null when no {@code traverse.ssh.tunnels} are configured. */
    private final SshGateways sshGateways;
    /** The gateways as the dialer's tunnels; null with them. */
    private final SshTunnels tunnels;

    DirectModule(ModuleContext context) {
        this.context = context;
        this.sshGateways = context.config().sshTunnels().isEmpty()
                ? null
                : new SshGateways(context.config().sshTunnels());
        this.tunnels = sshGateways == null ? null : new SshTunnels(sshGateways);
        if (sshGateways != null) {
            // The reverse module's dial-backs reach the same sites as this module's CONNECTs.
            context.directConnector().useTunnelsForDialBacks(tunnels);
            // A connection right after start (a pool, a command-line tool) should find the session up, not race its
            // login.
            sshGateways.logInInBackground();
        }
        this.portMapping = context.config().portmap() ? ListeningPortMapping.start(context) : null;
    }

    @Override
    public String name() {
        return DirectModuleProvider.NAME;
    }

    @Override
    public ConnectionAttempt plan(ConnectRequest request) throws AttemptFailedException {
        if (tunnels != null) {
            return context.directConnector().attemptWithTunnels(request, tunnels);
        }
        return context.directConnector().attempt(request);
    }

    @Override
    public void close() {
        if (portMapping != null) {
            portMapping.close();
        }
        if (sshGateways != null) {
            context.directConnector().useTunnelsForDialBacks(null);
            sshGateways.close();
        }
    }
}
