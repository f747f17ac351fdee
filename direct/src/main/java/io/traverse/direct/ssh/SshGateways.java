package io.traverse.direct.ssh;

import com.jcraft.jsch.JSch;
import com.jcraft.jsch.JSchException;
import com.jcraft.jsch.Session;
import io.traverse.config.SshTunnelRule;
import io.traverse.connect.Tunnels;
import io.traverse.identity.IpLiterals;
import io.traverse.spi.AttemptFailedException;
import io.traverse.spi.Deadline;
import io.traverse.spi.FailureScope;
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
import java.util.concurrent.ConcurrentHashMap;
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
 * <p>Used by the direct module (as {@link Tunnels}) and by the hub, whose links to peer hubs may
 * run through an sshd ({@link #forward(InetSocketAddress, Deadline)}).
 */
public final class SshGateways implements Tunnels, Closeable {
    private static final Logger log = LoggerFactory.getLogger(SshGateways.class);
    /** How long JSch waits for the sshd to open a forwarded channel before it drops the local connection. */
    static final int CHANNEL_OPEN_TIMEOUT_MILLIS = 10_000;
    static final int SERVER_ALIVE_INTERVAL_MILLIS = 15_000;

    private final List<SshTunnelRule> rules;
    private final Map<SshTunnelRule, RuleLogin> logins = new HashMap<>();
    private final ConcurrentHashMap<GatewayKey, Gateway> gateways = new ConcurrentHashMap<>();
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

    /** The first rule whose network holds the address. */
    public Optional<SshTunnelRule> ruleFor(InetAddress target) {
        for (SshTunnelRule rule : rules) {
            if (rule.covers(target)) {
                return Optional.of(rule);
            }
        }
        return Optional.empty();
    }

    @Override
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
        return "SSH gateway " + rule.user() + "@" + (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + rule.port();
    }

    private Gateway gateway(SshTunnelRule rule, InetAddress target) throws IOException {
        if (closed) {
            throw new AttemptFailedException(FailureScope.MODULE, "SSH tunnels are closed");
        }
        return gateways.computeIfAbsent(new GatewayKey(rule, rule.sshHostFor(target)), k -> new Gateway(k, logins.get(rule)));
    }

    @Override
    public void close() {
        closed = true;
        gateways.values().forEach(Gateway::close);
        gateways.clear();
    }

    private record GatewayKey(SshTunnelRule rule, String host) {
    }

    /** A rule's JSch: its key (with passphrase) and its known hosts. */
    private static final class RuleLogin {
        final JSch jsch = new JSch();
        final CheckedHostKeys hostKeys;

        RuleLogin(SshTunnelRule rule) {
            try {
                if (Files.isRegularFile(rule.knownHostsFile())) {
                    jsch.setKnownHosts(rule.knownHostsFile().toString());
                } else {
                    jsch.setKnownHosts(new ByteArrayInputStream(new byte[0])); // every host unknown: all refused
                }
                hostKeys = new CheckedHostKeys(jsch.getHostKeyRepository(), rule.knownHostsFile());
                jsch.setHostKeyRepository(hostKeys);
                byte[] passphrase = rule.passphrase().map(p -> p.getBytes(java.nio.charset.StandardCharsets.UTF_8)).orElse(null);
                jsch.addIdentity(rule.keyFile().toString(), passphrase);
            } catch (JSchException e) {
                throw new IllegalArgumentException("ssh tunnel rule " + rule + ": cannot load "
                        + (e.getMessage() != null && e.getMessage().contains("known") ? "known hosts" : "key " + rule.keyFile())
                        + ": " + e.getMessage(), e);
            }
        }
    }

    /** One sshd login: a session, reconnected when it has dropped, and its forwards. */
    private final class Gateway {
        private final GatewayKey key;
        private final RuleLogin login;
        private final Map<InetSocketAddress, Integer> forwards = new HashMap<>();
        private Session session;

        Gateway(GatewayKey key, RuleLogin login) {
            this.key = key;
            this.login = login;
        }

        synchronized InetSocketAddress forward(InetSocketAddress target, Deadline deadline) throws IOException {
            Session s = session(deadline);
            Integer port = forwards.get(target);
            if (port == null) {
                try {
                    port = s.setPortForwardingL("127.0.0.1", 0, IpLiterals.format(target.getAddress()), target.getPort(),
                            null, CHANNEL_OPEN_TIMEOUT_MILLIS);
                } catch (JSchException e) {
                    throw new AttemptFailedException(FailureScope.PATH, where() + ": cannot forward a local port to "
                            + IpLiterals.formatEndpoint(target.getAddress(), target.getPort()) + ": " + e.getMessage());
                }
                forwards.put(target, port);
                log.debug("{}: 127.0.0.1:{} leads to {}", where(), port, target);
            }
            return new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
        }

        private Session session(Deadline deadline) throws IOException {
            if (session != null && session.isConnected()) {
                return session;
            }
            if (session != null) {
                log.info("{}: session lost, logging in again", where());
                session.disconnect();
                session = null;
                forwards.clear();
            }
            SshTunnelRule rule = key.rule();
            Session s;
            try {
                s = login.jsch.getSession(rule.user(), key.host(), rule.port());
            } catch (JSchException e) {
                throw new AttemptFailedException(FailureScope.PATH, where() + ": " + e.getMessage());
            }
            s.setConfig("StrictHostKeyChecking", "yes");
            s.setConfig("PreferredAuthentications", "publickey");
            s.setDaemonThread(true);
            s.setServerAliveCountMax(3);
            try {
                s.setServerAliveInterval(SERVER_ALIVE_INTERVAL_MILLIS);
            } catch (JSchException e) {
                throw new AttemptFailedException(FailureScope.PATH, where() + ": " + e.getMessage());
            }
            String hostKeyName = rule.port() == 22 ? key.host() : "[" + key.host() + "]:" + rule.port();
            login.hostKeys.forget(hostKeyName);
            int millis = deadline.remainingMillis();
            if (millis <= 0) {
                throw new SocketTimeoutException(where() + ": no time left to log in");
            }
            try {
                s.connect(millis);
            } catch (JSchException e) {
                s.disconnect();
                throw refusal(e, hostKeyName, millis);
            }
            log.info("{}: logged in", where());
            session = s;
            return s;
        }

        private IOException refusal(JSchException e, String hostKeyName, int millis) {
            CheckedHostKeys.Seen seen = login.hostKeys.seen(hostKeyName);
            if (seen != null && seen.verdict() != com.jcraft.jsch.HostKeyRepository.OK) {
                return new AttemptFailedException(FailureScope.PATH, where() + ": refused: "
                        + login.hostKeys.explain(hostKeyName, seen));
            }
            String message = String.valueOf(e.getMessage());
            if (message.startsWith("Auth fail") || message.contains("Auth cancel")) {
                return new AttemptFailedException(FailureScope.PATH, where() + ": public-key login as " + key.rule().user()
                        + " with key " + key.rule().keyFile() + " refused");
            }
            if (message.contains("timeout") || e.getCause() instanceof SocketTimeoutException) {
                SocketTimeoutException timeout = new SocketTimeoutException(where() + ": SSH login timed out (" + millis + " ms)");
                timeout.initCause(e);
                return timeout;
            }
            return new AttemptFailedException(FailureScope.PATH, where() + ": " + message);
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
            forwards.clear();
        }
    }
}
