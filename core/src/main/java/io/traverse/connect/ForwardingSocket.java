package io.traverse.connect;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketOption;
import java.nio.channels.SocketChannel;
import java.util.Set;

/**
 * A {@link Socket} that forwards its calls to another socket, its {@link #delegate()}, so that a
 * wrapper overrides only what it changes (the pattern of Guava's {@code ForwardingObject}). Every
 * instance method is overridden here, so the socket implementation {@code Socket} creates for the
 * wrapper itself is never opened.
 *
 * <p>A few calls do not forward, because forwarding them would be wrong for a wrapper:
 *
 * <ul>
 *   <li>{@link #connect} and {@link #bind} are refused, as on a connected socket: the delegate is
 *       connected already. A wrapper made before its connection overrides them to make it.
 *   <li>{@link #getChannel()} is null: the delegate's channel would bypass what the wrapper adds.
 *   <li>{@link #setPerformancePreferences} does nothing, as on any connected socket.
 *   <li>{@link #toString()} names the wrapper and then the delegate.
 * </ul>
 *
 * <p>The delegate may be null while there is none yet, for a wrapper that exists before its
 * connection. Until then calls that need a connection (streams, shutdown, urgent data, options)
 * throw {@link SocketException} and queries answer as an unconnected socket does; a wrapper that
 * must keep options or a local address until it connects overrides those calls.
 */
// Not synchronized where Socket is: the base keeps no state to guard, the delegate guards its own.
@SuppressWarnings("UnsynchronizedOverridesSynchronized")
public abstract class ForwardingSocket extends Socket {
    /** Creates a wrapper; the delegate is whatever {@link #delegate()} returns at each call. */
    protected ForwardingSocket() {
        super();
    }

    /** The socket calls go to: read at every call, null while there is none yet. */
    protected abstract Socket delegate();

    /** The delegate for a call that needs a connection: refused once closed, as before connecting. */
    private Socket connected() throws SocketException {
        if (isClosed()) {
            throw new SocketException("Socket is closed");
        }
        return present();
    }

    /** The delegate, for option calls; these leave the closed check to the delegate. */
    private Socket present() throws SocketException {
        Socket s = delegate();
        if (s == null) {
            throw new SocketException("Socket is not connected");
        }
        return s;
    }

    @Override
    public void connect(SocketAddress endpoint) throws IOException {
        connect(endpoint, 0);
    }

    @Override
    public void connect(SocketAddress endpoint, int timeout) throws IOException {
        throw new SocketException("Already connected");
    }

    @Override
    public void bind(SocketAddress bindpoint) throws IOException {
        throw new SocketException("Already bound");
    }

    @Override
    public InputStream getInputStream() throws IOException {
        return connected().getInputStream();
    }

    @Override
    public OutputStream getOutputStream() throws IOException {
        return connected().getOutputStream();
    }

    @Override
    public void shutdownInput() throws IOException {
        connected().shutdownInput();
    }

    @Override
    public void shutdownOutput() throws IOException {
        connected().shutdownOutput();
    }

    @Override
    public void sendUrgentData(int data) throws IOException {
        connected().sendUrgentData(data);
    }

    @Override
    public void close() throws IOException {
        Socket s = delegate();
        if (s != null) {
            s.close();
        }
    }

    @Override
    public boolean isConnected() {
        Socket s = delegate();
        return s != null && s.isConnected();
    }

    @Override
    public boolean isBound() {
        Socket s = delegate();
        return s != null && s.isBound();
    }

    @Override
    public boolean isClosed() {
        Socket s = delegate();
        return s != null && s.isClosed();
    }

    @Override
    public boolean isInputShutdown() {
        Socket s = delegate();
        return s != null && s.isInputShutdown();
    }

    @Override
    public boolean isOutputShutdown() {
        Socket s = delegate();
        return s != null && s.isOutputShutdown();
    }

    @Override
    public InetAddress getInetAddress() {
        Socket s = delegate();
        return s == null ? null : s.getInetAddress();
    }

    @Override
    public int getPort() {
        Socket s = delegate();
        return s == null ? 0 : s.getPort();
    }

    @Override
    public SocketAddress getRemoteSocketAddress() {
        Socket s = delegate();
        return s == null ? null : s.getRemoteSocketAddress();
    }

    @Override
    public InetAddress getLocalAddress() {
        Socket s = delegate();
        return s == null ? new InetSocketAddress(0).getAddress() : s.getLocalAddress();
    }

    @Override
    public int getLocalPort() {
        Socket s = delegate();
        return s == null ? -1 : s.getLocalPort();
    }

    @Override
    public SocketAddress getLocalSocketAddress() {
        Socket s = delegate();
        return s == null ? null : s.getLocalSocketAddress();
    }

    /** Null: the delegate's channel would read and write past the wrapper. */
    @Override
    public SocketChannel getChannel() {
        return null;
    }

    @Override
    public void setTcpNoDelay(boolean on) throws SocketException {
        present().setTcpNoDelay(on);
    }

    @Override
    public boolean getTcpNoDelay() throws SocketException {
        return present().getTcpNoDelay();
    }

    @Override
    public void setKeepAlive(boolean on) throws SocketException {
        present().setKeepAlive(on);
    }

    @Override
    public boolean getKeepAlive() throws SocketException {
        return present().getKeepAlive();
    }

    @Override
    public void setSoLinger(boolean on, int linger) throws SocketException {
        present().setSoLinger(on, linger);
    }

    @Override
    public int getSoLinger() throws SocketException {
        return present().getSoLinger();
    }

    @Override
    public void setSoTimeout(int timeout) throws SocketException {
        present().setSoTimeout(timeout);
    }

    @Override
    public int getSoTimeout() throws SocketException {
        return present().getSoTimeout();
    }

    @Override
    public void setSendBufferSize(int size) throws SocketException {
        present().setSendBufferSize(size);
    }

    @Override
    public int getSendBufferSize() throws SocketException {
        return present().getSendBufferSize();
    }

    @Override
    public void setReceiveBufferSize(int size) throws SocketException {
        present().setReceiveBufferSize(size);
    }

    @Override
    public int getReceiveBufferSize() throws SocketException {
        return present().getReceiveBufferSize();
    }

    @Override
    public void setTrafficClass(int tc) throws SocketException {
        present().setTrafficClass(tc);
    }

    @Override
    public int getTrafficClass() throws SocketException {
        return present().getTrafficClass();
    }

    @Override
    public void setReuseAddress(boolean on) throws SocketException {
        present().setReuseAddress(on);
    }

    @Override
    public boolean getReuseAddress() throws SocketException {
        return present().getReuseAddress();
    }

    @Override
    public void setOOBInline(boolean on) throws SocketException {
        present().setOOBInline(on);
    }

    @Override
    public boolean getOOBInline() throws SocketException {
        return present().getOOBInline();
    }

    /** No effect, as on the JDK's own sockets: they ignore it, and after connecting so would the spec. */
    @Override
    public void setPerformancePreferences(int connectionTime, int latency, int bandwidth) {}

    /** Sets the option on the delegate; returns this wrapper, not the delegate. */
    @Override
    public <T> Socket setOption(SocketOption<T> name, T value) throws IOException {
        present().setOption(name, value);
        return this;
    }

    @Override
    public <T> T getOption(SocketOption<T> name) throws IOException {
        return present().getOption(name);
    }

    /** The delegate's options; none while there is no delegate. */
    @Override
    public Set<SocketOption<?>> supportedOptions() {
        Socket s = delegate();
        return s == null ? Set.of() : s.supportedOptions();
    }

    @Override
    public String toString() {
        Socket s = delegate();
        return getClass().getSimpleName() + "[" + (s == null ? "unconnected" : s) + "]";
    }
}
