package io.traverse.ssh;

import java.io.IOException;

/**
 * An SSH tunnel could not be set up: the message names the gateway and what it refused. Most
 * failures concern one gateway or one target; {@link #tunnelsClosed()} says that every tunnel is
 * gone (the node or hub that held them is closing).
 */
public final class SshTunnelException extends IOException {
    private static final long serialVersionUID = 1L;

    private final boolean tunnelsClosed;

    SshTunnelException(String message) {
        this(message, false);
    }

    private SshTunnelException(String message, boolean tunnelsClosed) {
        super(message);
        this.tunnelsClosed = tunnelsClosed;
    }

    static SshTunnelException closed() {
        return new SshTunnelException("SSH tunnels are closed", true);
    }

    /** True when no tunnel of these gateways can be used any more, not only this one. */
    public boolean tunnelsClosed() {
        return tunnelsClosed;
    }

    /** A fresh exception with the same message and kind: one failed login answers many callers. */
    SshTunnelException copy() {
        return new SshTunnelException(getMessage(), tunnelsClosed);
    }
}
