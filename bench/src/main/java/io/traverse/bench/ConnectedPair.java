package io.traverse.bench;

import io.traverse.Traverse;
import io.traverse.TraverseServerSocket;
import io.traverse.VirtualSocketAddress;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;

/**
 * One connected loopback socket pair: plain {@code java.net} sockets, plain sockets through a
 * {@code socat} relay or a line of minimal C relays, a direct Traverse connection between two nodes, or a routed one through
 * one to three hubs. Both ends get {@link Loopback#tune}.
 */
final class ConnectedPair implements Closeable {
    final Socket client;
    final Socket server;
    private final Closeable[] resources;

    private ConnectedPair(Socket client, Socket server, Closeable... resources) {
        this.client = client;
        this.server = server;
        this.resources = resources;
    }

    /** {@code new Socket()} + connect to a {@code ServerSocket} on 127.0.0.1. */
    static ConnectedPair plain() throws IOException {
        ServerSocket listener = Loopback.plainServer();
        try {
            Socket client = Loopback.tune(new Socket());
            client.connect(listener.getLocalSocketAddress());
            Socket server = Loopback.tune(listener.accept());
            return new ConnectedPair(client, server, listener);
        } catch (IOException | RuntimeException e) {
            listener.close();
            throw e;
        }
    }

    /**
     * Plain TCP through a proxy's CONNECT tunnel (no Traverse): what the proxy itself can carry,
     * the ceiling for a routed connection whose node links through it.
     */
    static ConnectedPair proxyTunnel(ChildHttpProxy.Kind kind) throws IOException {
        ServerSocket listener = Loopback.plainServer();
        ChildHttpProxy proxy = null;
        try {
            proxy = new ChildHttpProxy(kind);
            Socket client = proxy.tunnelTo(new InetSocketAddress(Loopback.LOOPBACK, listener.getLocalPort()));
            Socket server = Loopback.tune(listener.accept());
            return new ConnectedPair(client, server, listener, proxy);
        } catch (IOException | RuntimeException e) {
            listener.close();
            if (proxy != null) {
                proxy.close();
            }
            throw e;
        }
    }

    /**
     * A plain pair with both ends wrapped in {@link io.traverse.connect.InBandEndOfStreamSocket}, as
     * tunnelled (SSH) connections are: the cost of in-band end-of-stream chunking alone, no SSH.
     */
    static ConnectedPair inBandEndOfStream() throws IOException {
        ConnectedPair plain = plain();
        try {
            return new ConnectedPair(
                    new io.traverse.connect.InBandEndOfStreamSocket(plain.client),
                    new io.traverse.connect.InBandEndOfStreamSocket(plain.server),
                    plain);
        } catch (IOException | RuntimeException e) {
            plain.close();
            throw e;
        }
    }

    /**
     * Diagnostic: a plain client, and a server side accepted through a {@link ServerSocketChannel}
     * and used through {@code channel.socket()}, which is how a Traverse node hands out accepted
     * connections. Separates the cost of that socket flavour from the cost of Traverse itself.
     */
    static ConnectedPair plainChannel() throws IOException {
        ServerSocketChannel listener = ServerSocketChannel.open();
        try {
            listener.bind(new InetSocketAddress(Loopback.LOOPBACK, 0), 1024);
            Socket client = Loopback.tune(new Socket());
            client.connect(listener.getLocalAddress());
            SocketChannel accepted = listener.accept();
            Socket server = Loopback.tune(accepted.socket());
            return new ConnectedPair(client, server, listener);
        } catch (IOException | RuntimeException e) {
            listener.close();
            throw e;
        }
    }

    /** A direct connection from one Traverse node to a virtual port of another, both on 127.0.0.1. */
    static ConnectedPair traverse() throws IOException {
        Traverse serverNode = Loopback.startNode();
        Traverse clientNode = null;
        try {
            clientNode = Loopback.startNode();
            TraverseServerSocket listener = serverNode.serverSocketFactory().createServerSocket(0);
            VirtualSocketAddress vaddr = listener.virtualAddress();
            Socket client =
                    Loopback.tune(clientNode.socketFactory().createSocket(vaddr.getHostString(), vaddr.getPort()));
            Socket server = Loopback.tune(listener.accept());
            String module =
                    clientNode.connectionInfo(client).map(i -> i.module()).orElse("?");
            if (!"direct".equals(module)) {
                throw new IllegalStateException("expected a direct connection, got module " + module);
            }
            return new ConnectedPair(client, server, listener, clientNode, serverNode);
        } catch (IOException | RuntimeException e) {
            Loopback.closeQuietly(clientNode);
            serverNode.close();
            throw e;
        }
    }

    /**
     * A plain connection through a {@code socat} TCP relay (a child process, so it inherits the
     * benchmark's CPU pinning): the reference relay of the relay targets.
     */
    static ConnectedPair socat() throws IOException {
        return throughRelays(1, ChildRelay::socat);
    }

    /**
     * A plain connection through {@code relays} minimal C relays in a line ({@link ChildRelay#epoll}):
     * the least a relay process, or a line of them, can add on this machine.
     */
    static ConnectedPair epollRelays(int relays) throws IOException {
        return throughRelays(relays, ChildRelay::epoll);
    }

    /** A relay that starts listening and relays one connection to a target port. */
    private interface RelayStarter {
        ChildRelay start(int targetPort) throws IOException;
    }

    private static ConnectedPair throughRelays(int count, RelayStarter starter) throws IOException {
        ServerSocket listener = Loopback.plainServer();
        List<Closeable> resources = new ArrayList<>(List.of(listener));
        try {
            int next = listener.getLocalPort();
            for (int i = 0; i < count; i++) {
                ChildRelay relay = starter.start(next);
                resources.add(relay);
                next = relay.port();
            }
            Socket client = Loopback.tune(new Socket());
            client.connect(new InetSocketAddress(Loopback.LOOPBACK, next));
            Socket server = Loopback.tune(listener.accept());
            return new ConnectedPair(client, server, resources.toArray(Closeable[]::new));
        } catch (IOException | RuntimeException e) {
            for (Closeable c : resources) {
                Loopback.closeQuietly(c);
            }
            throw e;
        }
    }

    /**
     * A routed Traverse connection relayed by {@code hubs} hubs in a line, each a child JVM: the
     * client's node links to the first, the server's to the last.
     */
    static ConnectedPair routed(int hubs) throws IOException {
        return routed(hubs, true);
    }

    /** @param dataLink false: both nodes relay on their hub links, not on data links (the path before data links) */
    static ConnectedPair routed(int hubs, boolean dataLink) throws IOException {
        return routed(hubs, dataLink, null);
    }

    /**
     * @param clientBehindProxy the client's node links (hub link and data link) through this proxy,
     *        a child process with CONNECT, as a node at a proxy-only site does; null: no proxy
     */
    static ConnectedPair routed(int hubs, boolean dataLink, ChildHttpProxy.Kind clientBehindProxy) throws IOException {
        return routed(hubs, dataLink, clientBehindProxy, false, false);
    }

    /**
     * @param clientBehindProxy the HTTP proxy the client's node reaches its hub through, or null
     * @param clientLongPoll the client's node links by a long-poll session straight to its hub: what it writes goes up in POSTs
     * @param serverLongPoll the server's node does: what the client writes reaches it in poll answers
     */
    static ConnectedPair routed(
            int hubs,
            boolean dataLink,
            ChildHttpProxy.Kind clientBehindProxy,
            boolean clientLongPoll,
            boolean serverLongPoll)
            throws IOException {
        return routed(HubLine.start(hubs), dataLink, clientBehindProxy, clientLongPoll, serverLongPoll);
    }

    /** As above, through {@code line}, which this pair closes. */
    private static ConnectedPair routed(
            HubLine line,
            boolean dataLink,
            ChildHttpProxy.Kind clientBehindProxy,
            boolean clientLongPoll,
            boolean serverLongPoll)
            throws IOException {
        int hubs = line.size();
        Traverse serverNode = null;
        Traverse clientNode = null;
        ChildHttpProxy proxy = null;
        try {
            serverNode = line.routedNode(hubs - 1, dataLink, null, serverLongPoll);
            if (clientBehindProxy != null) {
                proxy = new ChildHttpProxy(clientBehindProxy);
                line.closeLater(proxy);
            }
            clientNode = line.routedNode(0, dataLink, proxy == null ? null : proxy.authority(), clientLongPoll);
            line.awaitRoute(clientNode, serverNode);
            TraverseServerSocket listener = serverNode.serverSocketFactory().createServerSocket(0);
            VirtualSocketAddress vaddr = listener.virtualAddress();
            Socket client =
                    Loopback.tune(clientNode.socketFactory().createSocket(vaddr.getHostString(), vaddr.getPort()));
            Socket server = Loopback.tune(listener.accept());
            String module =
                    clientNode.connectionInfo(client).map(i -> i.module()).orElse("?");
            if (!"routed".equals(module)) {
                throw new IllegalStateException("expected a routed connection, got module " + module);
            }
            return new ConnectedPair(client, server, listener, clientNode, serverNode, line);
        } catch (IOException | RuntimeException e) {
            Loopback.closeQuietly(clientNode);
            Loopback.closeQuietly(serverNode);
            line.close();
            throw e;
        }
    }

    static ConnectedPair of(String contender) throws IOException {
        return switch (contender) {
            case "plain" -> plain();
            case "in-band-eos" -> inBandEndOfStream();
            case "traverse" -> traverse();
            case "plain-channel" -> plainChannel();
            case "socat" -> socat();
            case "c-relay-1" -> epollRelays(1);
            case "c-relay-2" -> epollRelays(2);
            case "c-relay-3" -> epollRelays(3);
            case "routed-1" -> routed(1);
            case "routed-1-link" -> routed(1, false);
            case "routed-1-tls" -> routed(HubLine.start(1).dataLinkTls(true), true, null, false, false);
            case "routed-1-clear" -> routed(HubLine.start(1).inClear(true), true, null, false, false);
            case "routed-1-proxy" -> routed(1, true, ChildHttpProxy.Kind.TINYPROXY);
            case "proxy-tunnel" -> proxyTunnel(ChildHttpProxy.Kind.TINYPROXY);
            case "routed-1-squid" -> routed(1, true, ChildHttpProxy.Kind.SQUID);
            case "squid-tunnel" -> proxyTunnel(ChildHttpProxy.Kind.SQUID);
            case "longpoll-1" -> routed(1, true, null, true, false);
            case "longpoll-1-down" -> routed(1, true, null, false, true);
            case "routed-2" -> routed(2);
            case "routed-3" -> routed(3);
            default -> throw new IllegalArgumentException("unknown contender " + contender);
        };
    }

    @Override
    public void close() {
        Loopback.closeQuietly(client);
        Loopback.closeQuietly(server);
        for (Closeable c : resources) {
            Loopback.closeQuietly(c);
        }
    }
}
