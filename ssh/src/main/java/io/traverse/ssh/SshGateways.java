package io.traverse.ssh;

import com.jcraft.jsch.JSch;
import com.jcraft.jsch.JSchException;
import com.jcraft.jsch.Session;
import io.traverse.identity.IpLiterals;
import io.traverse.protocol.Deadline;
import io.traverse.settings.SshTunnelRule;
import java.io.ByteArrayInputStream;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * SSH tunnels through the sshds named in {@link SshTunnelRule}s (paper §3.2.4), with JSch: one SSH
 * session per sshd login, kept open and shared, and in it one local port forwarding per target
 * address, bound to 127.0.0.1 on a free port. A connection through the tunnel is then a plain TCP
 * connect to that loopback port, which JSch carries as a {@code direct-tcpip} channel to the sshd,
 * which connects to the target. Public-key login only; host keys checked strictly against the
 * rule's known_hosts file ({@link CheckedHostKeys}).
 *
 * <p>Logins run on their own threads, each bounded by {@link #LOGIN_TIMEOUT_MILLIS}: a connection
 * that needs the session waits for the login within its own deadline, and a login outlives a
 * connection that gave up on it, so the next one finds the session up. The direct module starts
 * the logins of rules with a gateway when the node starts ({@link #logInInBackground()}), so a
 * node's first connection through a tunnel does not lose its race to a relay while JSch logs in.
 *
 * <p>Used by the direct module (as the tunnels its dialer tries beside a target's plain addresses)
 * and by the hub, whose links to peer hubs may run through an sshd
 * ({@link #forward(InetSocketAddress, Deadline)}). Failures are {@link SshTunnelException}s that
 * name the gateway.
 */
public final class SshGateways implements Closeable {
    private static final Logger log = LoggerFactory.getLogger(SshGateways.class);
    /** How long JSch waits for the sshd to open a forwarded channel before it drops the local connection. */
    static final int CHANNEL_OPEN_TIMEOUT_MILLIS = 10_000;

    static final int SERVER_ALIVE_INTERVAL_MILLIS = 15_000;
    /** How long one login (TCP connect, key exchange, authentication) may take. */
    static final int LOGIN_TIMEOUT_MILLIS = 10_000;
    /** A failed login answers every connection of the next moment, instead of each logging in again. */
    static final long FAILED_LOGIN_KEPT_NANOS = TimeUnit.SECONDS.toNanos(2);
    /** Logins under way at once, at most (one per sshd login at a time). */
    static final int MAX_LOGINS = 16;

    private final List<SshTunnelRule> rules;
    private final Map<SshTunnelRule, RuleLogin> logins = new HashMap<>();
    private final ConcurrentHashMap<GatewayKey, Gateway> gateways = new ConcurrentHashMap<>();
    private final ThreadPoolExecutor loginThreads =
            new ThreadPoolExecutor(0, MAX_LOGINS, 30, TimeUnit.SECONDS, new SynchronousQueue<>(), r -> {
                Thread t = new Thread(r, "traverse-ssh-login");
                t.setDaemon(true);
                return t;
            });
    private volatile boolean closed;

    /** @throws IllegalArgumentException when a rule's key or known_hosts file cannot be loaded */
    public SshGateways(List<SshTunnelRule> rules) {
        this.rules = List.copyOf(rules);
        for (SshTunnelRule rule : this.rules) {
            logins.put(rule, new RuleLogin(rule));
        }
    }

    public boolean isEmpty() {
        return rules.isEmpty();
    }

    /**
     * Starts, in the background, the login of every rule that names a gateway (the sshd is known
     * before any target is): a node's first connection to that site then finds the session up, or
     * waits for the login under way instead of racing it. A failed login is logged at WARN and
     * tried again when a connection needs the session. Rules without a gateway log in to each
     * target's own sshd, known only when a connection asks for it.
     */
    public void logInInBackground() {
        for (SshTunnelRule rule : rules) {
            if (rule.gatewayHost() != null) {
                Gateway gateway;
                try {
                    gateway = gateway(rule, rule.gatewayHost());
                } catch (IOException closedAlready) {
                    return;
                }
                gateway.login().whenComplete((session, failure) -> {
                    if (failure != null) {
                        log.warn(
                                "SSH login at node start failed (tried again when a connection needs the session): {}",
                                failure.getMessage());
                    }
                });
            }
        }
    }

    /** The first rule whose network holds the address. */
    public Optional<SshTunnelRule> ruleFor(InetAddress target) {
        for (SshTunnelRule rule : rules) {
            if (rule.covers(target)) {
                return Optional.of(rule);
            }
        }
        return Optional.empty();
    }

    /** One way into one target address, through the sshd its rule names. */
    public interface Tunnel {
        /**
         * The loopback address whose connections the tunnel carries to the target address, set up
         * (logged in, forwarded) within the deadline if it is not up yet.
         *
         * @throws SshTunnelException naming the gateway, e.g. on a refused host key or login
         * @throws java.net.SocketTimeoutException if the login did not end within the deadline
         */
        InetSocketAddress entrance(Deadline deadline) throws IOException;

        /** For messages, e.g. "SSH gateway alice@198.18.3.1:22". */
        String describe();

        /**
         * The login already under way (started at start or by another connection), completing
         * when it ends either way; null when none is. Never starts a login itself.
         */
        CompletableFuture<?> setUpUnderWay();
    }

    /** The tunnel to {@code target}, if a rule covers its address. */
    public Optional<Tunnel> to(InetSocketAddress target) {
        if (target.isUnresolved()) {
            return Optional.empty();
        }
        return ruleFor(target.getAddress()).map(rule -> new Tunnel() {
            @Override
            public InetSocketAddress entrance(Deadline deadline) throws IOException {
                return gateway(rule, target.getAddress()).forward(target, deadline);
            }

            @Override
            public String describe() {
                return describeGateway(rule, target.getAddress());
            }

            @Override
            public CompletableFuture<?> setUpUnderWay() {
                Gateway gateway = gateways.get(new GatewayKey(rule, rule.sshHostFor(target.getAddress())));
                return gateway == null ? null : gateway.loginUnderWay();
            }
        });
    }

    /**
     * The loopback address whose connections reach {@code target} through the sshd its rule names,
     * or empty when no rule covers it.
     */
    public Optional<InetSocketAddress> forward(InetSocketAddress target, Deadline deadline) throws IOException {
        Optional<Tunnel> tunnel = to(target);
        return tunnel.isEmpty() ? Optional.empty() : Optional.of(tunnel.get().entrance(deadline));
    }

    static String describeGateway(SshTunnelRule rule, InetAddress target) {
        String host = rule.sshHostFor(target);
        return "SSH gateway " + rule.user() + "@" + (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":"
                + rule.port();
    }

    private Gateway gateway(SshTunnelRule rule, InetAddress target) throws IOException {
        return gateway(rule, rule.sshHostFor(target));
    }

    private Gateway gateway(SshTunnelRule rule, String sshHost) throws IOException {
        if (closed) {
            throw SshTunnelException.closed();
        }
        return gateways.computeIfAbsent(new GatewayKey(rule, sshHost), k -> new Gateway(k, logins.get(rule)));
    }

    @Override
    public void close() {
        closed = true;
        gateways.values().forEach(Gateway::close);
        gateways.clear();
        loginThreads.shutdownNow();
    }

    private record GatewayKey(SshTunnelRule rule, String host) {}

    /** A rule's JSch: its key (with passphrase) and its known hosts. */
    private static final class RuleLogin {
        final JSch jsch = new JSch();
        final CheckedHostKeys hostKeys;

        RuleLogin(SshTunnelRule rule) {
            JschLogging.useSlf4jUnlessSet(jsch);
            try {
                if (Files.isRegularFile(rule.knownHostsFile())) {
                    jsch.setKnownHosts(rule.knownHostsFile().toString());
                } else {
                    jsch.setKnownHosts(new ByteArrayInputStream(new byte[0])); // every host unknown: all refused
                }
                hostKeys = new CheckedHostKeys(jsch.getHostKeyRepository(), rule.knownHostsFile());
                jsch.setHostKeyRepository(hostKeys);
                byte[] passphrase = rule.passphrase()
                        .map(p -> p.getBytes(java.nio.charset.StandardCharsets.UTF_8))
                        .orElse(null);
                jsch.addIdentity(rule.keyFile().toString(), passphrase);
            } catch (JSchException e) {
                throw new IllegalArgumentException(
                        "ssh tunnel rule " + rule + ": cannot load "
                                + (e.getMessage() != null && e.getMessage().contains("known")
                                        ? "known hosts"
                                        : "key " + rule.keyFile())
                                + ": " + e.getMessage(),
                        e);
            }
        }
    }

    /**
     * One sshd login: a session, logged in again when it has dropped, and its forwards. The login
     * runs on a login thread; callers wait for it within their own deadlines.
     */
    private final class Gateway {
        private final GatewayKey key;
        private final RuleLogin login;
        /** Guarded by this. */
        private final Map<InetSocketAddress, Integer> forwards = new HashMap<>();
        /** The logged-in session, or null; guarded by this. */
        private Session session;
        /** The login under way, or the last one; guarded by this. */
        private CompletableFuture<Session> loggingIn;
        /** When the last login failed (System.nanoTime()); guarded by this. */
        private long failedAt;

        Gateway(GatewayKey key, RuleLogin login) {
            this.key = key;
            this.login = login;
        }

        /** The login under way, or null. */
        synchronized CompletableFuture<Session> loginUnderWay() {
            return loggingIn != null && !loggingIn.isDone() ? loggingIn : null;
        }

        /**
         * The session: at once while it is up; else the login under way; else the failure of a
         * login that failed a moment ago; else a new login, started on a login thread.
         */
        synchronized CompletableFuture<Session> login() {
            if (session != null && session.isConnected()) {
                return CompletableFuture.completedFuture(session);
            }
            if (loggingIn != null
                    && (!loggingIn.isDone()
                            || (loggingIn.isCompletedExceptionally()
                                    && System.nanoTime() - failedAt < FAILED_LOGIN_KEPT_NANOS))) {
                return loggingIn;
            }
            if (session != null) {
                log.info("{}: session lost, logging in again", where());
                session.disconnect();
                session = null;
                forwards.clear();
            }
            CompletableFuture<Session> started = new CompletableFuture<>();
            loggingIn = started;
            try {
                loginThreads.execute(() -> logIn(started));
            } catch (RejectedExecutionException e) {
                failedAt = System.nanoTime();
                started.completeExceptionally(new SshTunnelException(where() + ": "
                        + (closed ? "SSH tunnels are closed" : MAX_LOGINS + " SSH logins are under way already")));
            }
            return started;
        }

        InetSocketAddress forward(InetSocketAddress target, Deadline deadline) throws IOException {
            Session s = await(login(), deadline);
            synchronized (this) {
                if (s != session || !s.isConnected()) {
                    throw new SshTunnelException(where() + ": session lost right after the login");
                }
                Integer port = forwards.get(target);
                if (port == null) {
                    try {
                        port = s.setPortForwardingL(
                                "127.0.0.1",
                                0,
                                IpLiterals.format(target.getAddress()),
                                target.getPort(),
                                null,
                                CHANNEL_OPEN_TIMEOUT_MILLIS);
                    } catch (JSchException e) {
                        throw new SshTunnelException(where() + ": cannot forward a local port to "
                                + IpLiterals.formatEndpoint(target.getAddress(), target.getPort()) + ": "
                                + e.getMessage());
                    }
                    forwards.put(target, port);
                    log.debug("{}: 127.0.0.1:{} leads to {}", where(), port, target);
                }
                return new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
            }
        }

        /** The login's session within the deadline; its failure as a fresh exception of the same kind (one failure, many callers). */
        private Session await(CompletableFuture<Session> pending, Deadline deadline) throws IOException {
            long nanos = deadline.remainingNanos();
            if (nanos <= 0 && !pending.isDone()) {
                throw new SocketTimeoutException(where() + ": no time left to wait for the SSH login");
            }
            try {
                return pending.get(Math.max(0, nanos), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                throw new SocketTimeoutException(where() + ": SSH login not done within "
                        + TimeUnit.NANOSECONDS.toMillis(nanos) + " ms (it goes on in the background)");
            } catch (ExecutionException e) {
                Throwable cause = e.getCause();
                if (cause instanceof SshTunnelException a) {
                    throw a.copy();
                }
                if (cause instanceof SocketTimeoutException) {
                    throw new SocketTimeoutException(cause.getMessage());
                }
                throw new SshTunnelException(String.valueOf(cause.getMessage()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new java.io.InterruptedIOException(where() + ": interrupted waiting for the SSH login");
            } catch (java.util.concurrent.CancellationException e) {
                throw new SshTunnelException(where() + ": SSH tunnels are closed");
            }
        }

        /** On a login thread. */
        private void logIn(CompletableFuture<Session> result) {
            long start = System.nanoTime();
            SshTunnelRule rule = key.rule();
            String hostKeyName = rule.port() == 22 ? key.host() : "[" + key.host() + "]:" + rule.port();
            Session s = null;
            try {
                s = login.jsch.getSession(rule.user(), key.host(), rule.port());
                s.setConfig("StrictHostKeyChecking", "yes");
                s.setConfig("PreferredAuthentications", "publickey");
                s.setDaemonThread(true);
                s.setServerAliveCountMax(3);
                s.setServerAliveInterval(SERVER_ALIVE_INTERVAL_MILLIS);
                login.hostKeys.forget(hostKeyName);
                s.connect(LOGIN_TIMEOUT_MILLIS);
            } catch (JSchException e) {
                if (s != null) {
                    s.disconnect();
                }
                IOException failure = s == null
                        ? new SshTunnelException(where() + ": " + e.getMessage())
                        : refusal(e, hostKeyName, LOGIN_TIMEOUT_MILLIS);
                synchronized (this) {
                    failedAt = System.nanoTime();
                }
                log.debug("{}: login failed: {}", where(), failure.getMessage());
                result.completeExceptionally(failure);
                return;
            }
            synchronized (this) {
                if (closed) {
                    s.disconnect();
                    failedAt = System.nanoTime();
                    result.completeExceptionally(new SshTunnelException(where() + ": SSH tunnels are closed"));
                    return;
                }
                session = s;
            }
            log.info("{}: logged in ({} ms)", where(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
            result.complete(s);
        }

        private IOException refusal(JSchException e, String hostKeyName, int millis) {
            CheckedHostKeys.Seen seen = login.hostKeys.seen(hostKeyName);
            if (seen != null && seen.verdict() != com.jcraft.jsch.HostKeyRepository.OK) {
                return new SshTunnelException(where() + ": refused: " + login.hostKeys.explain(hostKeyName, seen));
            }
            String message = String.valueOf(e.getMessage());
            if (message.startsWith("Auth fail") || message.contains("Auth cancel")) {
                return new SshTunnelException(where() + ": public-key login as "
                        + key.rule().user() + " with key " + key.rule().keyFile() + " refused");
            }
            if (message.contains("timeout") || e.getCause() instanceof SocketTimeoutException) {
                SocketTimeoutException timeout =
                        new SocketTimeoutException(where() + ": SSH login timed out (" + millis + " ms)");
                timeout.initCause(e);
                return timeout;
            }
            return new SshTunnelException(where() + ": " + message);
        }

        private String where() {
            String host = key.host();
            return "SSH gateway " + key.rule().user() + "@" + (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":"
                    + key.rule().port();
        }

        synchronized void close() {
            if (session != null) {
                session.disconnect();
                session = null;
            }
            if (loggingIn != null) {
                loggingIn.cancel(false);
            }
            forwards.clear();
        }
    }
}
