package io.traverse.splice;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.unix.IntegerUnixChannelOption;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Sends one SYN with a small IP TTL from a local port, and forgets it (STUNT, NUTSS): the SYN
 * opens the mapping of every NAT it passes on this side and dies at a router before the peer's
 * NAT, so it draws no reset that would close the mapping again. The socket that sent it is closed
 * at once, while still connecting, which sends nothing (if the peer's SYN caught it first, a reset
 * with the same small TTL, which closes this side's mappings for the connect to open again and
 * dies before the peer's: SO_LINGER 0). The peer's SYN, let in by the mapping,
 * then meets this side's own connect from the same port (or {@link SilentPort} before it), not a
 * socket whose answers would die on the way too, and the router's ICMP "time exceeded" finds no
 * socket to abort.
 *
 * <p>The JDK has no TTL option for TCP sockets; Netty's native epoll transport sets it, so this
 * works on Linux only ({@link #available()}).
 */
final class LowTtlSyns implements AutoCloseable {
    private static final int SOL_SOCKET = 1;
    private static final int SO_REUSEPORT = 15;
    private static final int IPPROTO_IP = 0;
    private static final int IP_TTL = 2;
    private static final int IPPROTO_IPV6 = 41;
    private static final int IPV6_UNICAST_HOPS = 16;
    /** The event loop sends it at once; a wait this long means it is stuck. */
    private static final long SEND_TIMEOUT_MILLIS = 1_000;

    private EventLoopGroup loop;
    private boolean closed;

    /** True where a SYN's TTL can be set (Linux, with Netty's native transport loaded). */
    static boolean available() {
        return Epoll.isAvailable();
    }

    /**
     * Sends a SYN with {@code ttl} from {@code local} to {@code remote}; returns once it is on its
     * way, and its socket is closed. The local port is shared (SO_REUSEADDR, SO_REUSEPORT).
     *
     * @throws IOException if the port cannot be bound or the SYN cannot be sent
     */
    void send(InetSocketAddress local, InetSocketAddress remote, int ttl) throws IOException {
        CompletableFuture<Void> sent = new CompletableFuture<>();
        boolean v6 = remote.getAddress() instanceof Inet6Address;
        IntegerUnixChannelOption ttlOption = v6
                ? new IntegerUnixChannelOption("IPV6_UNICAST_HOPS", IPPROTO_IPV6, IPV6_UNICAST_HOPS)
                : new IntegerUnixChannelOption("IP_TTL", IPPROTO_IP, IP_TTL);
        CloseOnceSent handler = new CloseOnceSent(sent, ttlOption, ttl);
        Bootstrap bootstrap = new Bootstrap()
                .group(loop())
                .channel(EpollSocketChannel.class)
                .option(ChannelOption.SO_REUSEADDR, true)
                .option(ChannelOption.SO_LINGER, 0)
                .option(new IntegerUnixChannelOption("SO_REUSEPORT", SOL_SOCKET, SO_REUSEPORT), 1)
                .option(ttlOption, ttl)
                .handler(handler);
        ChannelFuture connecting = bootstrap.connect(remote, local);
        connecting.addListener(f -> {
            if (!f.isSuccess() && !handler.reached) {
                sent.completeExceptionally(f.cause()); // registering failed: the connect never came
            }
        });
        try {
            sent.get(SEND_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new IOException(
                    "could not send a SYN with TTL " + ttl + " from " + local + " to " + remote + ": "
                            + e.getCause().getMessage(),
                    e.getCause());
        } catch (TimeoutException e) {
            connecting.channel().close();
            throw new IOException(
                    "a SYN with TTL " + ttl + " from " + local + " was not sent within " + SEND_TIMEOUT_MILLIS + " ms");
        } catch (InterruptedException e) {
            connecting.channel().close();
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted sending a SYN with a small TTL");
        }
    }

    private synchronized EventLoopGroup loop() throws IOException {
        if (closed) {
            throw new IOException("the splice module is closed");
        }
        if (loop == null) {
            loop = new MultiThreadIoEventLoopGroup(
                    1, new DefaultThreadFactory("traverse-splice-ttl", true), EpollIoHandler.newFactory());
        }
        return loop;
    }

    @Override
    public synchronized void close() {
        closed = true;
        if (loop != null) {
            loop.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
        }
    }

    /** Closes the channel right after its connect call: the kernel sent the SYN inside that call. */
    private static final class CloseOnceSent extends ChannelOutboundHandlerAdapter {
        private final CompletableFuture<Void> sent;
        private final IntegerUnixChannelOption ttlOption;
        private final int ttl;
        /** Set on the event loop before the connect call: from then on this handler completes {@code sent}. */
        volatile boolean reached;

        CloseOnceSent(CompletableFuture<Void> sent, IntegerUnixChannelOption ttlOption, int ttl) {
            this.sent = sent;
            this.ttlOption = ttlOption;
            this.ttl = ttl;
        }

        @Override
        public void connect(
                ChannelHandlerContext ctx, SocketAddress remote, SocketAddress local, ChannelPromise promise) {
            reached = true;
            // Netty only logs an option it could not set: a SYN with the full TTL would reach the peer's NAT and draw a
            // reset.
            Integer set = ctx.channel().config().getOption(ttlOption);
            if (set == null || set != ttl) {
                IOException notSet = new IOException("the TTL could not be set to " + ttl + " (it is " + set + ")");
                promise.tryFailure(notSet);
                sent.completeExceptionally(notSet);
                ctx.channel().close();
                return;
            }
            ctx.connect(remote, local, promise);
            Throwable failed = promise.isDone() && !promise.isSuccess() ? promise.cause() : null;
            // In SYN_SENT: no reset goes out. Closed before the sender goes on, which connects from the same four-tuple
            // next.
            ctx.channel().close().addListener(closed -> {
                if (failed != null) {
                    sent.completeExceptionally(failed);
                } else {
                    sent.complete(null);
                }
            });
        }
    }
}
