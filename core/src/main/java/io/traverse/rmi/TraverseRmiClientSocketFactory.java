package io.traverse.rmi;

import io.traverse.Traverse;
import io.traverse.identity.RegisteredName;
import java.io.IOException;
import java.io.Serializable;
import java.net.Socket;
import java.rmi.server.RMIClientSocketFactory;
import java.util.Objects;

/**
 * RMI's client side over Traverse. It travels inside every stub of an object exported with
 * {@link TraverseRmiServerSocketFactory}, so a client needs no code for it beyond having Traverse on
 * its class path; connections go through the client JVM's default node ({@link Traverse#getDefault()},
 * configured by {@code traverse.*} system properties, {@code TRAVERSE_*} environment or
 * {@code traverse.properties}).
 *
 * <p>Made for a server's registered name, it connects to that name whatever host the stub names:
 * a stub carries the server's {@code java.rmi.server.hostname} or its own address, which clients
 * on other sites often cannot reach. Made without a name, it connects to the stub's host as given
 * (a registered name, a {@code tv1-…} node address or a DNS host).
 *
 * <p>Two factories are equal when they name the same server (RMI shares connections between
 * equal factories).
 */
public final class TraverseRmiClientSocketFactory implements RMIClientSocketFactory, Serializable {
    private static final long serialVersionUID = 1L;

    /** The server's registered name, or null: the stub's host. */
    private final String serverName;

    /** Connects to the host each stub names. */
    public TraverseRmiClientSocketFactory() {
        this.serverName = null;
    }

    /**
     * Connects to {@code serverName}, registered at the hub network, whatever host a stub names.
     *
     * @throws IllegalArgumentException if the name is not hostname-safe
     */
    public TraverseRmiClientSocketFactory(String serverName) {
        if (!RegisteredName.isValid(serverName)) {
            throw new IllegalArgumentException("'" + serverName + "' is not a name a Traverse node can register");
        }
        this.serverName = RegisteredName.normalize(serverName);
    }

    @Override
    public Socket createSocket(String host, int port) throws IOException {
        return Traverse.getDefault().socketFactory().createSocket(serverName != null ? serverName : host, port);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TraverseRmiClientSocketFactory other && Objects.equals(serverName, other.serverName);
    }

    @Override
    public int hashCode() {
        return Objects.hash(TraverseRmiClientSocketFactory.class, serverName);
    }

    @Override
    public String toString() {
        return "TraverseRmiClientSocketFactory[" + (serverName != null ? serverName : "the stub's host") + "]";
    }
}
