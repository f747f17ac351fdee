package io.traverse.direct;

import io.traverse.protocol.Deadline;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Tunnels that lead to some of a target's addresses (paper §3.2.4: SSH port forwarding through
 * the target site's sshd). {@link DirectConnector} tries a tunnelled address beside the plain
 * attempt while no plain connection has reached the tunnel's network, after the plain attempts
 * once one has, with the same identity handshake, asking for in-band end-of-stream because a
 * tunnel does not carry TCP half-close. The SSH machinery lives in traverse-ssh, adapted by the
 * direct module's {@code SshTunnels}; core only dials.
 */
public interface Tunnels {
    /** The tunnel to use for this address of a target, or empty to dial it only plainly. */
    Optional<Tunnel> to(InetSocketAddress target);

    /** One way into one target address. */
    interface Tunnel {
        /**
         * The local address whose connections the tunnel carries to the target address, set up
         * within the deadline if it is not up yet.
         *
         * @throws io.traverse.spi.AttemptFailedException with a message naming the gateway, e.g. on a refused host key
         */
        InetSocketAddress entrance(Deadline deadline) throws IOException;

        /** For messages, e.g. "SSH gateway alice@198.18.3.1:22". */
        String describe();

        /**
         * The tunnel's setup already under way (an SSH login started at node start or by another
         * connection), completing when it ends either way; null when nothing is under way (the
         * tunnel is up, or would be set up only by {@link #entrance}). A connection attempt waits
         * for it, bounded, before it starts, so that modules raced after it do not win only because
         * a login had not finished yet. Never starts a setup itself.
         */
        default CompletableFuture<?> setUpUnderWay() {
            return null;
        }
    }
}
