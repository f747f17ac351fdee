package io.traverse.node;

import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.net.Socket;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What a node remembers per socket (how it was made), for as long as the application holds the
 * socket: keyed by the socket's identity through a weak reference, so a socket the application
 * drops is forgotten. Replaces a synchronized {@code WeakHashMap}, which cost 7 % of a connecting
 * node's and 20 % of an accepting node's Java samples in the drop-in benchmark (a lock per
 * connection, and resizing as thousands of sockets die between collections): here a connection
 * costs one lock-free insertion, and entries of collected sockets are removed as new ones come.
 */
final class SocketRecords<V> {
    private final ConcurrentHashMap<Object, V> records = new ConcurrentHashMap<>();
    private final ReferenceQueue<Socket> collected = new ReferenceQueue<>();

    void put(Socket socket, V value) {
        forgetCollected();
        records.put(new Key(socket, collected), value);
    }

    V get(Socket socket) {
        return records.get(new Probe(socket));
    }

    V remove(Socket socket) {
        return records.remove(new Probe(socket));
    }

    int size() {
        forgetCollected();
        return records.size();
    }

    private void forgetCollected() {
        Reference<? extends Socket> gone;
        while ((gone = collected.poll()) != null) {
            records.remove(gone); // a cleared key equals only itself
        }
    }

    /** A stored key: the socket, weakly, with its identity hash kept for after it is cleared. */
    private static final class Key extends WeakReference<Socket> {
        private final int hash;

        Key(Socket socket, ReferenceQueue<Socket> queue) {
            super(socket, queue);
            this.hash = System.identityHashCode(socket);
        }

        @Override
        public int hashCode() {
            return hash;
        }

        @Override
        public boolean equals(Object o) {
            if (o == this) {
                return true;
            }
            Socket mine = get();
            return mine != null && o instanceof Key other && other.get() == mine;
        }
    }

    /** A look-up key: equal to the stored key of the same socket object. */
    private record Probe(Socket socket) {
        @Override
        public int hashCode() {
            return System.identityHashCode(socket);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key key && key.get() == socket;
        }
    }
}
