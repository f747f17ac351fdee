package io.traverse.spi;

/**
 * A socket whose bytes Traverse moves itself (a relayed connection) and can therefore count: a
 * module's socket implements this so that {@code Traverse.connectionStatistics(Socket)} reports
 * live byte counts and the hubs on its path. Kernel sockets (direct, reverse, splice) do not:
 * their data path is the JDK's own socket, untouched, so nobody in Traverse sees their bytes.
 */
public interface MeasuredConnection {
    /** Bytes the application has read from this connection so far. */
    long bytesIn();

    /** Bytes the application has written to this connection so far (accepted for sending). */
    long bytesOut();

    /** Hubs the connection's frames cross between the two nodes (at least 1 for a relayed connection). */
    int hubsTraversed();

    /** True if the bytes are encrypted end to end between the two nodes (a sealed relayed connection). */
    default boolean sealed() {
        return false;
    }
}
