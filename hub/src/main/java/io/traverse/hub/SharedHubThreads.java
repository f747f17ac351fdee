package io.traverse.hub;

import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.DefaultEventExecutorGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.EventExecutorGroup;
import io.traverse.hub.link.NettyTransport;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Threads that many hubs of one JVM share, for simulations of large hub networks: a hub started
 * alone ({@link Hub#start(HubConfig)}) has its own I/O loops, state loop and worker, so a thousand
 * hubs would be three thousand threads, and a machine of a few cores spends its time switching
 * between them and bringing them to the JVM's safepoints. Hubs started with
 * {@link Hub#start(HubConfig, SharedHubThreads)} take their I/O loops, a state loop and the worker
 * from here instead.
 *
 * <p>Each hub still makes every decision on one thread: it is given one single-threaded state loop
 * ({@link #nextStateLoop()}, round robin), which other hubs may share but which is never split.
 * Closing a hub leaves the shared threads running; {@link #close()} ends them, after the hubs.
 */
public final class SharedHubThreads implements AutoCloseable {
    private final NettyTransport transport = NettyTransport.best();
    private final EventLoopGroup ioLoops;
    private final EventExecutorGroup stateLoops;
    private final ThreadPoolExecutor worker;

    /**
     * @param ioThreads I/O event loops for all the hubs' links
     * @param stateThreads state loops, each serving several hubs whole
     * @param queuedWork tasks the shared worker (host name resolution, status rendering) holds at most
     */
    public SharedHubThreads(int ioThreads, int stateThreads, int queuedWork) {
        ioLoops = transport.newEventLoopGroup(ioThreads, "traverse-hubs-io");
        stateLoops = new DefaultEventExecutorGroup(stateThreads, new DefaultThreadFactory("traverse-hubs-state", true));
        worker = new ThreadPoolExecutor(1, 1, 30, TimeUnit.SECONDS, new ArrayBlockingQueue<>(queuedWork),
                new DefaultThreadFactory("traverse-hubs-worker", true), new ThreadPoolExecutor.AbortPolicy());
        worker.allowCoreThreadTimeOut(true);
    }

    NettyTransport transport() {
        return transport;
    }

    EventLoopGroup ioLoops() {
        return ioLoops;
    }

    /** A single-threaded state loop for the next hub. */
    EventExecutor nextStateLoop() {
        return stateLoops.next();
    }

    ThreadPoolExecutor worker() {
        return worker;
    }

    @Override
    public void close() {
        ioLoops.shutdownGracefully(50, 2000, TimeUnit.MILLISECONDS).awaitUninterruptibly(3, TimeUnit.SECONDS);
        stateLoops.shutdownGracefully(0, 1000, TimeUnit.MILLISECONDS).awaitUninterruptibly(2, TimeUnit.SECONDS);
        worker.shutdownNow();
    }
}
