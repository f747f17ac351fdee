package io.traverse.rmi;

import io.traverse.Traverse;
import io.traverse.TraverseServerSocket;
import io.traverse.identity.RegisteredName;
import java.io.IOException;
import java.io.Serializable;
import java.net.ServerSocket;
import java.rmi.server.RMIServerSocketFactory;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * RMI's server side over Traverse: RMI's listening sockets become virtual ports of a Traverse node,
 * and the node holds {@code name} at the hub network, so that clients anywhere in the hub network
 * reach the registry and every exported object by that name:
 *
 * <pre>{@code
 * TraverseRmiServerSocketFactory ssf = new TraverseRmiServerSocketFactory("orders");
 * RMIClientSocketFactory csf = ssf.clientFactory();
 * Registry registry = LocateRegistry.createRegistry(1099, csf, ssf);
 * registry.rebind("Orders", UnicastRemoteObject.exportObject(service, 0, csf, ssf));
 *
 * // on another site:
 * Registry remote = LocateRegistry.getRegistry("orders", 1099, new TraverseRmiClientSocketFactory("orders"));
 * Orders orders = (Orders) remote.lookup("Orders");
 * }</pre>
 *
 * <p>The name is registered the first time the factory makes a server socket on a node, and is held
 * as long as that node runs (a name stands for the node, like a host name: every virtual port of the
 * node is reached by it). It is held by a virtual port of its own that accepts nothing, so that
 * RMI's listening sockets may come and go, on any ports. A name another node holds fails the
 * export ({@code ExportException: Listen failed on port: …}, caused by "cannot register the RMI name
 * … it is taken by another node").
 *
 * <p>Two factories are equal when they register the same name (RMI shares a listening socket
 * between objects exported on one port with equal factories). Serializable, as RMI allows; a
 * factory read back uses the default node.
 */
public final class TraverseRmiServerSocketFactory implements RMIServerSocketFactory, Serializable {
    private static final long serialVersionUID = 1L;
    /** Per node and name, the virtual port that holds the name. */
    private static final Map<NameOnNode, TraverseServerSocket> HELD = new ConcurrentHashMap<>();
    /** Per name, what a registration in progress holds (a name's registrations are few; other names go on meanwhile). */
    private static final Map<String, Object> REGISTERING = new ConcurrentHashMap<>();

    private final String name;
    /** The node to listen on; null: the default node ({@link Traverse#getDefault()}). */
    private final transient Traverse node;

    /**
     * Listens on the default node ({@link Traverse#getDefault()}) and registers {@code name} there.
     *
     * @throws IllegalArgumentException if the name is not hostname-safe
     */
    public TraverseRmiServerSocketFactory(String name) {
        this(name, null);
    }

    /**
     * Listens on {@code node} (null: the default node) and registers {@code name} there.
     *
     * @throws IllegalArgumentException if the name is not hostname-safe
     */
    public TraverseRmiServerSocketFactory(String name, Traverse node) {
        if (!RegisteredName.isValid(name)) {
            throw new IllegalArgumentException("'" + name + "' is not a name a Traverse node can register");
        }
        this.name = RegisteredName.normalize(name);
        this.node = node;
    }

    /** The name clients reach this factory's server sockets by. */
    public String name() {
        return name;
    }

    /** The client factory for stubs of objects exported with this one: it connects by this name. */
    public TraverseRmiClientSocketFactory clientFactory() {
        return new TraverseRmiClientSocketFactory(name);
    }

    /**
     * A virtual port of the node ({@code 0}: any free one, as RMI asks for an anonymous port); the
     * first call on a node registers the name.
     *
     * @throws IOException if another live node holds the name, or no hub can be asked within {@code traverse.hub.timeout}
     * @throws java.net.BindException if the virtual port is taken
     */
    @Override
    public ServerSocket createServerSocket(int port) throws IOException {
        Traverse on = node != null ? node : Traverse.getDefault();
        holdName(on);
        return on.serverSocketFactory().createServerSocket(port);
    }

    private void holdName(Traverse on) throws IOException {
        HELD.values().removeIf(ServerSocket::isClosed); // names of nodes closed since
        NameOnNode key = new NameOnNode(on, name);
        synchronized (REGISTERING.computeIfAbsent(name, k -> new Object())) {
            TraverseServerSocket holder = HELD.get(key);
            if (holder != null && !holder.isClosed()) {
                return;
            }
            try {
                HELD.put(key, on.serverSocketFactory().createServerSocket(name, 0));
            } catch (IOException e) {
                // Not a BindException: RMI would say "Port already in use", and the port is not the trouble.
                throw new IOException(
                        "cannot register the RMI name '" + name + "' at the hub network: " + e.getMessage(), e);
            }
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TraverseRmiServerSocketFactory other && name.equals(other.name) && node == other.node;
    }

    @Override
    public int hashCode() {
        return Objects.hash(TraverseRmiServerSocketFactory.class, name);
    }

    @Override
    public String toString() {
        return "TraverseRmiServerSocketFactory[" + name + (node != null ? " on " + node.identity() : "") + "]";
    }

    /** A node (Traverse has identity equality) and a name it holds. */
    private record NameOnNode(Traverse node, String name) {}
}
