package io.traverse.testbed;

import java.net.InetAddress;

/**
 * A port forward (DNAT) on a {@link NatRouter}: connections to {@code publicPort} of the router's
 * public address go to {@code target:targetPort} on its site.
 *
 * @param protocol {@code tcp} or {@code udp}
 */
public record PortForward(String protocol, int publicPort, InetAddress target, int targetPort) {
    public PortForward {
        if (!protocol.equals("tcp") && !protocol.equals("udp")) {
            throw new IllegalArgumentException("protocol '" + protocol + "' is not tcp or udp");
        }
        checkPort(publicPort);
        checkPort(targetPort);
    }

    public static PortForward tcp(int publicPort, InetAddress target, int targetPort) {
        return new PortForward("tcp", publicPort, target, targetPort);
    }

    /** The nft prerouting rule for connections arriving on {@code outsideInterface}. */
    String rule(String outsideInterface) {
        return "iifname \"" + outsideInterface + "\" " + protocol + " dport " + publicPort + " dnat to "
                + target.getHostAddress() + ":" + targetPort;
    }

    private static void checkPort(int port) {
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port " + port + " is not within 1-65535");
        }
    }
}
