package io.traverse.hublink.transport;

import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The threads every node of a JVM shares for its hub link: a small Netty event-loop group
 * (daemon threads, at most two: a node has one link) and one daemon thread for the DNS lookups of
 * configured hub host names, which must never run on an event loop, and the threads that complete
 * answers off the event loops ({@link #completions()}). Reference-counted: the threads go away a
 * moment after the last node closes and come back with the next one.
 */
public final class LinkEventLoops {
    private static final int THREADS = Math.min(2, Runtime.getRuntime().availableProcessors());
    /** Epoll on Linux: its wake-ups (an eventfd) cost less than NIO's selector, which shows in relayed round trips. */
    private static final boolean EPOLL = Epoll.isAvailable();

    private static EventLoopGroup group;
    private static ExecutorService resolver;
    /**
     * Completes answers (side channel, hub lookups) off the event loops, where callers' dependent
     * stages may block. Not CompletableFuture's default: with fewer than three CPUs (this machine's
     * two, a container's one, a pinned benchmark) that starts a new thread for every completion.
     * Threads are reused, one is kept while nodes exist, at most {@link #COMPLETION_THREADS} at once.
     */
    private static volatile ThreadPoolExecutor completionPool;

    static final int COMPLETION_THREADS = 32;
    private static final Executor COMPLETIONS = task -> {
        ThreadPoolExecutor pool = completionPool;
        if (pool != null) {
            try {
                pool.execute(task);
                return;
            } catch (RejectedExecutionException e) {
                // all busy (callers block in dependent stages) or shut down: the common pool takes it
            }
        }
        ForkJoinPool.commonPool().execute(task);
    };
    private static int users;

    private LinkEventLoops() {}

    /** A loop for one node's link; pair with {@link #release()}. */
    public static synchronized EventLoop acquire() {
        if (group == null) {
            group = new MultiThreadIoEventLoopGroup(
                    THREADS,
                    new DefaultThreadFactory("traverse-hublink", true),
                    EPOLL ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
            ThreadPoolExecutor dns = new ThreadPoolExecutor(
                    1,
                    1,
                    10,
                    TimeUnit.SECONDS,
                    new LinkedBlockingQueue<>(256),
                    new DefaultThreadFactory("traverse-hublink-dns", true));
            dns.allowCoreThreadTimeOut(true);
            resolver = dns;
            completionPool = new ThreadPoolExecutor(
                    1,
                    COMPLETION_THREADS,
                    10,
                    TimeUnit.SECONDS,
                    new SynchronousQueue<>(),
                    new DefaultThreadFactory("traverse-answers", true));
        }
        users++;
        return group.next();
    }

    /** The channel class that goes with the loops. */
    public static Class<? extends Channel> channelClass() {
        return EPOLL ? EpollSocketChannel.class : NioSocketChannel.class;
    }

    /** Where hub host names are resolved (blocking DNS), off the event loops. */
    static synchronized ExecutorService resolver() {
        return resolver;
    }

    /** Where answers are completed off the event loops (never the caller's thread, never an event loop). */
    public static Executor completions() {
        return COMPLETIONS;
    }

    public static synchronized void release() {
        if (users > 0 && --users == 0) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            resolver.shutdown();
            completionPool.shutdown();
            completionPool = null;
            group = null;
            resolver = null;
        }
    }
}
