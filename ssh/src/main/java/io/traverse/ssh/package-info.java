/**
 * SSH tunnels for the direct module and the hub (paper §3.2.4), with JSch: a target address in a
 * network named by a {@code traverse.ssh.tunnels} rule is also dialled through an sshd (the target
 * itself, or the site's gateway) by local port forwarding, public-key login and strict host-key
 * checking. SSH forwarding loses TCP half-close, so such connections ask in their identity handshake
 * for in-band end-of-stream (core's {@code InBandEndOfStream}).
 */
package io.traverse.ssh;
