package io.traverse.hub;

import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.DefaultEventExecutorGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.EventExecutorGroup;
import io.traverse.hub.link.NettyTransport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

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
        worker = new ThreadPoolExecutor(
                1,
                1,
                30,
                TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(queuedWork),
                new DefaultThreadFactory("traverse-hubs-worker", true),
                new ThreadPoolExecutor.AbortPolicy());
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

    /**
     * How long a task queued now waits before its loop runs it, the longest over every I/O and
     * state loop: how far behind the hubs are. A simulation starts its next hubs once this is
     * short, so that it measures a network formed rather than a backlog.
     */
    public Duration queueDelay() throws InterruptedException {
        List<Future<Long>> probes = new ArrayList<>();
        long queued = System.nanoTime();
        for (EventExecutor loop : ioLoops) {
            probes.add(loop.submit(System::nanoTime));
        }
        for (EventExecutor loop : stateLoops) {
            probes.add(loop.submit(System::nanoTime));
        }
        long longest = 0;
        for (Future<Long> probe : probes) {
            try {
                longest = Math.max(longest, probe.get(60, TimeUnit.SECONDS) - queued);
            } catch (ExecutionException | TimeoutException e) {
                return Duration.ofSeconds(60);
            }
        }
        return Duration.ofNanos(longest);
    }

    @Override
    public void close() {
        ioLoops.shutdownGracefully(50, 2000, TimeUnit.MILLISECONDS).awaitUninterruptibly(3, TimeUnit.SECONDS);
        stateLoops.shutdownGracefully(0, 1000, TimeUnit.MILLISECONDS).awaitUninterruptibly(2, TimeUnit.SECONDS);
        worker.shutdownNow();
    }
}
