package io.traverse.bench.load;

import java.lang.reflect.Method;

/**
 * The threads the harness runs one connection on: platform threads (256 KiB stacks), or with
 * {@code -Dbench.load.virtualThreads=true} on Java 21 or later, virtual threads. With ten thousand
 * platform threads per JVM on two cores the harness's JVMs stood still for seconds (safepoints
 * that took 12 s to reach, young collections of half a second), which measured the harness, not
 * the hub; virtual threads keep the library's contract (blocking {@code java.net.Socket}) at a
 * fraction of the cost. Looked up by reflection: the bench is built for Java 17.
 */
final class ConnectionThreads {
    private static final long PLATFORM_STACK = 256 * 1024;
    static final boolean VIRTUAL = Boolean.getBoolean("bench.load.virtualThreads");

    private ConnectionThreads() {}

    /** Starts {@code task} on a new connection thread (daemon, when it is a platform thread). */
    static Thread start(String name, Runnable task) {
        if (VIRTUAL) {
            try {
                Method startVirtualThread = Thread.class.getMethod("startVirtualThread", Runnable.class);
                Thread t = (Thread) startVirtualThread.invoke(null, task);
                t.setName(name);
                return t;
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(
                        "bench.load.virtualThreads needs Java 21 or later, not " + Runtime.version(), e);
            }
        }
        Thread t = new Thread(null, task, name, PLATFORM_STACK);
        t.setDaemon(true);
        t.start();
        return t;
    }
}
