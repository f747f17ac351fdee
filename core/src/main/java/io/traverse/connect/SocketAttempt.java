package io.traverse.connect;

import io.traverse.identity.IpLiterals;
import io.traverse.protocol.Deadline;
import io.traverse.spi.AttemptFailedException;
import io.traverse.spi.ConnectOptions;
import io.traverse.spi.FailureScope;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Proxy;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;

/**
 * One TCP connect to one address, with an optional step after the TCP handshake (the identity
 * handshake), cancellable from another thread by closing the channel. Failure messages name the
 * address.
 *
 * <p>Everything is done with untimed blocking calls on a plain {@code new Socket()}; the deadline is
 * enforced by the {@link DeadlineWatchdog} closing the socket. The JDK's timed connect and read
 * would switch the descriptor to non-blocking and back around every call (four {@code fcntl}s and
 * a {@code poll} each). The result is the same socket object the application would get from
 * {@code new Socket(host, port)}: same class, same blocking descriptor, same data path.
 *
 * <p>A loopback address is dialled by a socket made with {@link Proxy#NO_PROXY}: the JDK's default
 * proxy selection never proxies loopback, and asking it costs every connect a {@code URI} parse
 * and several system property look-ups (a tenth of the client's work in a loopback setup).
 * Other addresses go through the JVM's proxy settings as {@code new Socket()} does.
 */
public abstract class SocketAttempt implements StaggeredRace.Attempt<Socket> {
    protected final InetSocketAddress address;
    protected final Deadline deadline;
    private final ConnectOptions options;
    private volatile Socket socket;
    private volatile boolean cancelled;
    private volatile boolean expired;
    private volatile boolean connected;

    protected SocketAttempt(InetSocketAddress address, Deadline deadline, ConnectOptions options) {
        this.address = address;
        this.deadline = deadline;
        this.options = options;
    }

    @SuppressWarnings("try") // the watch acts by existing: it fires if the connect outlives the deadline
    @Override
    public final Socket run() throws IOException {
        long remaining = deadline.remainingNanos();
        if (remaining <= 0) {
            throw new SocketTimeoutException(where() + ": Connect timed out");
        }
        Socket ch = address.getAddress().isLoopbackAddress() ? new Socket(Proxy.NO_PROXY) : new Socket();
        socket = ch;
        try (DeadlineWatchdog.Watch watch =
                DeadlineWatchdog.shared().watch(System.nanoTime() + remaining, this::expire)) {
            if (cancelled) {
                throw new SocketException("attempt cancelled");
            }
            if (options.receiveBufferSize() > 0) {
                ch.setReceiveBufferSize(options.receiveBufferSize());
            }
            if (options.localAddress() != null) {
                ch.setReuseAddress(true);
                ch.bind(options.localAddress());
            }
            beforeConnect();
            ch.connect(address);
            connected = true;
            afterConnect(ch);
            if (expired || cancelled) {
                throw new SocketException("Socket closed"); // closed under us just as we finished
            }
            return ch;
        } catch (IOException | RuntimeException e) {
            closeQuietly(ch);
            throw describe(e);
        }
    }

    /**
     * Runs right before the TCP connect: work that needs no connection but must not wait after it
     * (what the first bytes need), done while the peer is still to be reached.
     */
    protected void beforeConnect() throws IOException {}

    /** Runs once the TCP connection stands, with untimed blocking calls; throw to reject the connection. */
    protected abstract void afterConnect(Socket connected) throws IOException;

    /** What a timeout during {@link #afterConnect} means, for the message. */
    protected String timeoutAfterConnect() {
        return "Connect timed out";
    }

    private void expire() {
        expired = true;
        closeQuietly(socket);
    }

    /** The socket of a finished {@link #run()} (for the confirmation after a win), else null. */
    protected final Socket socket() {
        return socket;
    }

    /** True once the race has called off this attempt (another attempt or module won). */
    protected final boolean isCancelled() {
        return cancelled;
    }

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
        IOException described;
        if (expired) {
            described = new SocketTimeoutException(
                    where() + ": " + (connected ? timeoutAfterConnect() : "Connect timed out"));
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

    public static void closeQuietly(Socket s) {
        if (s == null) {
            return;
        }
        try {
            s.close();
        } catch (IOException ignored) {
            // nothing to do
        }
    }
}
