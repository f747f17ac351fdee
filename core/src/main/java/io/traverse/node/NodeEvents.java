package io.traverse.node;

import io.traverse.ConnectionInfo;
import io.traverse.HubLinkStatus;
import io.traverse.TraverseListener;
import io.traverse.identity.NodeId;
import io.traverse.spi.ModuleEvents;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The events of one node and the listeners that hear them. Whoever reports an event (an event
 * loop, a module, the connecting thread) only queues it; one daemon thread per node delivers the
 * events in order to every listener, so a listener never runs on an I/O thread or holds up a
 * connect. A listener that throws is logged and the others still hear the event. The queue is
 * bounded: when full, events are dropped (and the drops logged), never buffered without limit.
 * The thread exists only while there are events to deliver.
 */
public final class NodeEvents implements TraverseListener, ModuleEvents {
    static final int MAX_QUEUED = 10_000;
    private static final Logger log = LoggerFactory.getLogger(NodeEvents.class);

    private final List<TraverseListener> listeners = new CopyOnWriteArrayList<>();
    private final ThreadPoolExecutor thread;
    private final AtomicLong dropped = new AtomicLong();

    public NodeEvents(String threadName) {
        this.thread = new ThreadPoolExecutor(1, 1, 30, TimeUnit.SECONDS, new ArrayBlockingQueue<>(MAX_QUEUED), r -> {
            Thread t = new Thread(r, threadName);
            t.setDaemon(true);
            return t;
        });
        thread.allowCoreThreadTimeOut(true);
    }

    public void add(TraverseListener listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    public void remove(TraverseListener listener) {
        listeners.remove(listener);
    }

    /** Stops delivering; events already queued are still delivered. */
    public void close() {
        thread.shutdown();
    }

    private void publish(String event, Consumer<TraverseListener> call) {
        if (listeners.isEmpty()) {
            return;
        }
        try {
            thread.execute(() -> deliver(event, call));
        } catch (RejectedExecutionException e) {
            if (!thread.isShutdown()) {
                long n = dropped.incrementAndGet();
                if (n % 1000 == 1) {
                    log.warn(
                            "Listeners are too slow: {} events queued; dropped {} so far (latest: {})",
                            MAX_QUEUED,
                            n,
                            event);
                }
            }
        }
    }

    private void deliver(String event, Consumer<TraverseListener> call) {
        for (TraverseListener listener : listeners) {
            try {
                call.accept(listener);
            } catch (RuntimeException | Error e) {
                if (e instanceof VirtualMachineError fatal) {
                    throw fatal;
                }
                log.warn("Listener {} failed on event {}", listener, event, e);
            }
        }
    }

    @Override
    public void connected(ConnectionInfo connection) {
        publish("connected", l -> l.connected(connection));
    }

    @Override
    public void connectFailed(SocketAddress target, IOException failure) {
        publish("connect failed", l -> l.connectFailed(target, failure));
    }

    @Override
    public void peerUnreachable(String module, NodeId peer, String reason) {
        publish("peer unreachable", l -> l.peerUnreachable(module, peer, reason));
    }

    @Override
    public void hubLinkUp(HubLinkStatus status) {
        publish("hub link up", l -> l.hubLinkUp(status));
    }

    @Override
    public void hubLinkLost(NodeId hubId, InetSocketAddress hubAddress, String reason) {
        publish("hub link lost", l -> l.hubLinkLost(hubId, hubAddress, reason));
    }

    @Override
    public void pathUpgraded(String cacheKey, String previousModule, String newModule) {
        publish("path upgraded", l -> l.pathUpgraded(cacheKey, previousModule, newModule));
    }
}
