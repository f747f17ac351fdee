package io.traverse.listen;

import java.net.BindException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/** The virtual ports of one node: many server sockets share the node's one real listening port. */
public final class VirtualPortTable {
    static final int EPHEMERAL_FIRST = 49152;
    static final int EPHEMERAL_LAST = 65535;

    private final ConcurrentHashMap<Integer, AcceptQueue> ports = new ConcurrentHashMap<>();

    /** Binds a port (1–65535), or any free ephemeral port for 0; returns the port. */
    public int bind(int port, AcceptQueue queue) throws BindException {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port out of range: " + port);
        }
        if (port != 0) {
            if (ports.putIfAbsent(port, queue) != null) {
                throw new BindException("Address already in use: virtual port " + port);
            }
            return port;
        }
        int span = EPHEMERAL_LAST - EPHEMERAL_FIRST + 1;
        int start = ThreadLocalRandom.current().nextInt(span);
        for (int i = 0; i < span; i++) {
            int candidate = EPHEMERAL_FIRST + (start + i) % span;
            if (ports.putIfAbsent(candidate, queue) == null) {
                return candidate;
            }
        }
        throw new BindException("no free ephemeral virtual port");
    }

    public void unbind(int port, AcceptQueue queue) {
        ports.remove(port, queue);
    }

    public AcceptQueue lookup(int port) {
        return ports.get(port);
    }

    public int size() {
        return ports.size();
    }
}
