package io.traverse.direct.portmap;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.PortUnreachableException;
import java.net.SocketTimeoutException;
import java.time.Duration;

/**
 * One request and its reply with the router's PCP/NAT-PMP server (UDP 5351), retransmitted with
 * the protocol's doubling backoff but a bounded number of tries, so a router that never answers
 * costs seconds, not the RFCs' minutes. Replies from any address but the router's are ignored
 * (the socket is connected), as are replies the parser rejects while time remains: a stray or
 * malformed datagram must not end the exchange.
 */
final class UdpExchange {
    static final int SERVER_PORT = 5351;
    private static final int MAX_REPLY = 1100;

    /** Parses a reply; throws to reject it. */
    interface ReplyParser<T> {
        T parse(byte[] data, int length) throws PortMappingException;
    }

    private final InetSocketAddress server;
    private final Duration initialWait;
    private final int tries;

    UdpExchange(InetAddress gateway, Duration initialWait, int tries) {
        this(new InetSocketAddress(gateway, SERVER_PORT), initialWait, tries);
    }

    UdpExchange(InetSocketAddress server, Duration initialWait, int tries) {
        this.server = server;
        this.initialWait = initialWait;
        this.tries = tries;
    }

    InetSocketAddress server() {
        return server;
    }

    /** The local address this host uses towards the router (what the router sees as the client). */
    InetAddress localAddressTowardsServer() throws IOException {
        try (DatagramSocket s = new DatagramSocket()) {
            s.connect(server);
            return s.getLocalAddress();
        }
    }

    <T> T exchange(byte[] request, ReplyParser<T> parser, String what) throws IOException {
        try (DatagramSocket socket = new DatagramSocket()) {
            socket.connect(server);
            return exchange(socket, request, parser, what);
        }
    }

    <T> T exchange(DatagramSocket socket, byte[] request, ReplyParser<T> parser, String what) throws IOException {
        byte[] buffer = new byte[MAX_REPLY + 1];
        long wait = initialWait.toMillis();
        PortMappingException lastRejected = null;
        for (int attempt = 1; attempt <= tries; attempt++) {
            socket.send(new DatagramPacket(request, request.length));
            long until = System.nanoTime() + wait * 1_000_000L;
            long left;
            while ((left = until - System.nanoTime()) > 0) {
                socket.setSoTimeout((int) Math.max(1, left / 1_000_000L));
                DatagramPacket reply = new DatagramPacket(buffer, buffer.length);
                try {
                    socket.receive(reply);
                } catch (SocketTimeoutException e) {
                    break;
                } catch (PortUnreachableException e) {
                    throw new PortMappingException(
                            what + ": nothing listens on " + server + " (ICMP port unreachable)", e);
                }
                try {
                    return parser.parse(reply.getData(), reply.getLength());
                } catch (PortMappingException e) {
                    if (e.isRefusal()) {
                        throw e; // a definite answer from the router
                    }
                    lastRejected = e;
                }
            }
            wait *= 2;
        }
        throw new PortMappingException(what + ": no valid reply from " + server + " after " + tries + " tries"
                + (lastRejected != null ? " (last reply rejected: " + lastRejected.getMessage() + ")" : ""));
    }
}
