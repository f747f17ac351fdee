package io.traverse.direct;

import io.traverse.direct.portmap.ListeningPortMapping;
import io.traverse.direct.portmap.PortMappingSettings;
import io.traverse.settings.SshTunnelRule;
import io.traverse.spi.AttemptFailedException;
import io.traverse.spi.ConnectRequest;
import io.traverse.spi.ConnectionAttempt;
import io.traverse.spi.ConnectionModule;
import io.traverse.spi.ModuleContext;
import io.traverse.ssh.SshGateways;
import java.util.List;

/**
 * Direct connections (paper §3.3.3 "Direct", built on §3.2.2): the target's own addresses, tried
 * in heuristic order as staggered parallel connects, each checked with the identity handshake.
 * The machinery is {@link DirectConnector}, the node's {@link io.traverse.spi.HandshakeDialer},
 * because reverse dials back with it too; this module adds the SSH tunnels and the port mapping.
 */
final class DirectModule implements ConnectionModule {

    private final ModuleContext context;
    /** The listening port mapped on the NAT router (traverse.portmap), or null. */
    private final ListeningPortMapping portMapping;
    /** Null when no {@code traverse.ssh.tunnels} are configured. */
    private final SshGateways sshGateways;
    /** The gateways as the dialer's tunnels; null with them. */
    private final SshTunnels tunnels;

    /** The node's dialer; null when another dialer than this module's is on the class path (tests). */
    private final DirectConnector connector;

    DirectModule(ModuleContext context) {
        this.context = context;
        this.connector = context.handshakeDialer() instanceof DirectConnector own ? own : null;
        List<SshTunnelRule> sshTunnels = context.config().get(DirectModuleProvider.SSH_TUNNELS);
        this.sshGateways = sshTunnels.isEmpty() ? null : new SshGateways(sshTunnels);
        this.tunnels = sshGateways == null ? null : new SshTunnels(sshGateways);
        if (sshGateways != null) {
            if (connector != null) {
                // The reverse module's dial-backs reach the same sites as this module's CONNECTs.
                connector.useTunnelsForDialBacks(tunnels);
            }
            // A connection right after start (a pool, a command-line tool) should find the session up, not race its
            // login.
            sshGateways.logInInBackground();
        }
        PortMappingSettings portMappingSettings = PortMappingSettings.of(context.config());
        this.portMapping = portMappingSettings.on() ? ListeningPortMapping.start(context, portMappingSettings) : null;
    }

    @Override
    public String name() {
        return DirectModuleProvider.NAME;
    }

    @Override
    public ConnectionAttempt plan(ConnectRequest request) throws AttemptFailedException {
        if (tunnels != null && connector != null) {
            return connector.attemptWithTunnels(request, tunnels);
        }
        return context.handshakeDialer().attempt(request);
    }

    @Override
    public void close() {
        if (portMapping != null) {
            portMapping.close();
        }
        if (sshGateways != null) {
            if (connector != null) {
                connector.useTunnelsForDialBacks(null);
            }
            sshGateways.close();
        }
    }
}
