package io.traverse.connect;

import io.traverse.spi.AttemptFailedException;
import io.traverse.spi.ConnectOptions;
import io.traverse.spi.Deadline;
import io.traverse.spi.FailureScope;
import io.traverse.identity.IpLiterals;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.channels.SocketChannel;

/**
 * One TCP connect to one address, cancellable by closing the socket, with an optional step after
 * the TCP handshake (the identity handshake). Failure messages name the address.
 */
abstract class SocketAttempt implements StaggeredRace.Attempt<Socket> {
    protected final InetSocketAddress address;
    protected final Deadline deadline;
    private final ConnectOptions options;
    private volatile Socket socket;
    private volatile boolean cancelled;

    SocketAttempt(InetSocketAddress address, Deadline deadline, ConnectOptions options) {
        this.address = address;
        this.deadline = deadline;
        this.options = options;
    }

    /**
     * The socket is a channel's: the JDK's own {@code Socket} switches its file descriptor to
     * non-blocking for good after one timed operation (a connect timeout, a read timeout during
     * the handshake), and every later blocking read of the application then costs a failed read
     * and a {@code poll}. A channel's socket goes back to blocking mode after each timed operation.
     */
    @Override
    public final Socket run() throws IOException {
        Socket s = SocketChannel.open().socket();
        socket = s;
        try {
            if (cancelled) {
                throw new SocketException("attempt cancelled");
            }
            if (options.receiveBufferSize() > 0) {
                s.setReceiveBufferSize(options.receiveBufferSize());
            }
            if (options.localAddress() != null) {
                s.setReuseAddress(true);
                s.bind(options.localAddress());
            }
            int timeout = deadline.remainingMillis();
            if (timeout == 0) {
                throw new SocketTimeoutException("Connect timed out");
            }
            s.connect(address, timeout);
            afterConnect(s);
            return s;
        } catch (IOException | RuntimeException e) {
            closeQuietly(s);
            throw describe(e);
        }
    }

    /** Runs once the TCP connection stands; throw to reject it. */
    protected abstract void afterConnect(Socket connected) throws IOException;

    @Override
    public final void cancel() {
        cancelled = true;
        Socket s = socket;
        if (s != null) {
            closeQuietly(s);
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
        String message = where() + ": " + (cancelled ? "cancelled" : e.getMessage());
        IOException described;
        if (e instanceof SocketTimeoutException) {
            described = new SocketTimeoutException(message);
        } else if (e instanceof ConnectException) {
            described = new ConnectException(message);
        } else if (e instanceof UnknownHostException) {
            described = new UnknownHostException(message);
        } else {
            described = new AttemptFailedException(FailureScope.PATH, message);
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
}
