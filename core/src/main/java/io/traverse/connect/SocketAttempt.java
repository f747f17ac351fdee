package io.traverse.connect;

import io.traverse.identity.IpLiterals;
import io.traverse.spi.AttemptFailedException;
import io.traverse.spi.ConnectOptions;
import io.traverse.spi.Deadline;
import io.traverse.spi.FailureScope;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.StandardSocketOptions;
import java.net.UnknownHostException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SocketChannel;

/**
 * One TCP connect to one address, with an optional step after the TCP handshake (the identity
 * handshake), cancellable from another thread by closing the channel. Failure messages name the
 * address.
 *
 * <p>Everything is done with plain blocking channel calls; the deadline is enforced by the
 * {@link DeadlineWatchdog} closing the channel. The JDK's timed connect and read would switch the
 * descriptor to non-blocking and back around every call (four {@code fcntl}s and a {@code poll}
 * each). The result is the channel's socket, in blocking mode, as the application expects it.
 */
abstract class SocketAttempt implements StaggeredRace.Attempt<Socket> {
    protected final InetSocketAddress address;
    protected final Deadline deadline;
    private final ConnectOptions options;
    private volatile SocketChannel channel;
    private volatile boolean cancelled;
    private volatile boolean expired;
    private volatile boolean connected;

    SocketAttempt(InetSocketAddress address, Deadline deadline, ConnectOptions options) {
        this.address = address;
        this.deadline = deadline;
        this.options = options;
    }

    @Override
    public final Socket run() throws IOException {
        long remaining = deadline.remainingNanos();
        if (remaining <= 0) {
            throw new SocketTimeoutException(where() + ": Connect timed out");
        }
        SocketChannel ch = SocketChannel.open();
        channel = ch;
        try (DeadlineWatchdog.Watch watch = DeadlineWatchdog.shared().watch(System.nanoTime() + remaining, this::expire)) {
            if (cancelled) {
                throw new SocketException("attempt cancelled");
            }
            if (options.receiveBufferSize() > 0) {
                ch.setOption(StandardSocketOptions.SO_RCVBUF, options.receiveBufferSize());
            }
            if (options.localAddress() != null) {
                ch.setOption(StandardSocketOptions.SO_REUSEADDR, true);
                ch.bind(options.localAddress());
            }
            ch.connect(address);
            connected = true;
            afterConnect(ch);
            if (expired || cancelled) {
                throw new ClosedChannelException(); // closed under us just as we finished
            }
            return ch.socket();
        } catch (IOException | RuntimeException e) {
            closeQuietly(ch);
            throw describe(e);
        }
    }

    /** Runs once the TCP connection stands, on the blocking channel; throw to reject the connection. */
    protected abstract void afterConnect(SocketChannel connected) throws IOException;

    /** What a timeout during {@link #afterConnect} means, for the message. */
    protected String timeoutAfterConnect() {
        return "Connect timed out";
    }

    private void expire() {
        expired = true;
        closeQuietly(channel);
    }

    @Override
    public final void cancel() {
        cancelled = true;
        SocketChannel ch = channel;
        if (ch != null) {
            closeQuietly(ch);
        }
    }

    @Override
    public String describe() {
        return where();
    }

    protected String where() {
        return IpLiterals.formatEndpoint(address.getAddress(), address.getPort());
    }

    /** Puts the address into the message, keeping the exception type the JDK would use. */
    private IOException describe(Exception e) {
        if (e instanceof AttemptFailedException a) {
            return a;
        }
        IOException described;
        if (expired) {
            described = new SocketTimeoutException(where() + ": " + (connected ? timeoutAfterConnect() : "Connect timed out"));
        } else if (cancelled) {
            described = new SocketException(where() + ": cancelled");
        } else if (e instanceof SocketTimeoutException) {
            described = new SocketTimeoutException(where() + ": " + e.getMessage());
        } else if (e instanceof ConnectException) {
            described = new ConnectException(where() + ": " + e.getMessage());
        } else if (e instanceof UnknownHostException) {
            described = new UnknownHostException(where() + ": " + e.getMessage());
        } else {
            described = new AttemptFailedException(FailureScope.PATH, where() + ": " + e.getMessage());
        }
        described.initCause(e);
        return described;
    }

    static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // nothing to do
        }
    }

    static void closeQuietly(SocketChannel ch) {
        if (ch == null) {
            return;
        }
        try {
            ch.close();
        } catch (IOException ignored) {
            // nothing to do
        }
    }
}
