package io.traverse.direct;

import io.traverse.config.ModuleKey;
import io.traverse.direct.portmap.PortMappingSettings;
import io.traverse.settings.SshTunnelRule;
import io.traverse.spi.ConnectionModule;
import io.traverse.spi.ConnectionModuleProvider;
import io.traverse.spi.ModuleContext;
import java.util.List;

/** Registers the {@code direct} module with the {@link java.util.ServiceLoader}. */
public final class DirectModuleProvider implements ConnectionModuleProvider {
    public static final String NAME = "direct";

    /** Target networks this node may also reach through an sshd (paper §3.2.4), first match wins. */
    public static final ModuleKey<List<SshTunnelRule>> SSH_TUNNELS = ModuleKey.of(
            "traverse.ssh.tunnels",
            "",
            "rules separated by ';', each NETWORK user=NAME key=FILE [gateway=HOST[:PORT]] [port=PORT] [passphrase=TEXT] [known-hosts=FILE],"
                    + " e.g. 198.18.3.0/24 user=alice key=/home/alice/.ssh/id_rsa known-hosts=/home/alice/.ssh/known_hosts",
            SshTunnelRule::parseList);

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public ConnectionModule create(ModuleContext context) {
        return new DirectModule(context);
    }

    /** SSH tunnels and port mapping. */
    @Override
    public List<ModuleKey<?>> keys() {
        return List.of(
                SSH_TUNNELS,
                PortMappingSettings.PORTMAP,
                PortMappingSettings.PROTOCOLS,
                PortMappingSettings.LEASE,
                PortMappingSettings.GATEWAY);
    }
}
