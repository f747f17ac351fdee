package io.traverse.hub.link;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;

/** Native epoll where Netty can load it, NIO elsewhere: the event loops and channel classes of a hub. */
public final class NettyTransport {
    private final boolean epoll;

    private NettyTransport(boolean epoll) {
        this.epoll = epoll;
    }

    /** Epoll when available, else NIO. */
    public static NettyTransport best() {
        return new NettyTransport(Epoll.isAvailable());
    }

    public boolean isEpoll() {
        return epoll;
    }

    /** A group of I/O event loops with daemon threads named after the hub. */
    public EventLoopGroup newEventLoopGroup(int threads, String threadPrefix) {
        IoHandlerFactory handlers = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        return new MultiThreadIoEventLoopGroup(threads, new DefaultThreadFactory(threadPrefix, true), handlers);
    }

    public Class<? extends ServerChannel> serverChannelClass() {
        return epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    }

    public Class<? extends SocketChannel> socketChannelClass() {
        return epoll ? EpollSocketChannel.class : NioSocketChannel.class;
    }

    @Override
    public String toString() {
        return epoll ? "epoll" : "nio";
    }
}
