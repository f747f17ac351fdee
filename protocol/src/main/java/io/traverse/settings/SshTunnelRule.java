package io.traverse.settings;

import io.traverse.identity.IpLiterals;
import io.traverse.identity.Subnet;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Which target addresses are reached through which sshd, and how to log in there (paper §3.2.4).
 * A rule's text form, as in {@code traverse.ssh.tunnels} (rules separated by {@code ;}):
 *
 * <pre>
 * NETWORK user=NAME key=FILE [gateway=HOST[:PORT]] [port=PORT] [passphrase=TEXT] [known-hosts=FILE]
 * </pre>
 *
 * NETWORK is a CIDR ({@code 198.18.3.0/24}), an address, or {@code all}. Without a gateway the
 * sshd is the target address itself (on {@code port}, default 22) and forwards to its own port,
 * as in the paper; with one, that host's sshd forwards to the target address (a site frontend
 * for its compute nodes). Host keys are checked strictly against {@code known-hosts} (default
 * {@code ~/.ssh/known_hosts}): an unknown or changed host key is refused, never learned.
 *
 * @param gatewayHost null: the target address itself
 */
public record SshTunnelRule(
        Subnet network,
        String gatewayHost,
        int port,
        String user,
        Path keyFile,
        Optional<String> passphrase,
        Path knownHostsFile) {
    public static final int DEFAULT_PORT = 22;

    public SshTunnelRule {
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("ssh port " + port + " is not within 1-65535");
        }
        if (user == null || user.isBlank()) {
            throw new IllegalArgumentException("an ssh tunnel rule needs user=NAME");
        }
        if (keyFile == null) {
            throw new IllegalArgumentException("an ssh tunnel rule needs key=FILE (public-key authentication only)");
        }
    }

    /** Whether this rule leads to that target address. */
    public boolean covers(InetAddress target) {
        return network.contains(target);
    }

    /** The sshd to log in to for this target: the gateway, or the target itself. */
    public String sshHostFor(InetAddress target) {
        return gatewayHost != null ? gatewayHost : IpLiterals.format(target);
    }

    /** Parses a list of rules separated by {@code ;}; empty text is no rules. */
    public static List<SshTunnelRule> parseList(String text) {
        List<SshTunnelRule> rules = new ArrayList<>();
        for (String part : text.split(";")) {
            if (!part.isBlank()) {
                rules.add(parse(part));
            }
        }
        return List.copyOf(rules);
    }

    /** Parses one rule. */
    public static SshTunnelRule parse(String text) {
        String[] words = text.trim().split("\\s+");
        Subnet network = words[0].equalsIgnoreCase("all") ? Subnet.parse("0.0.0.0/0") : Subnet.parse(words[0]);
        String gateway = null;
        int port = DEFAULT_PORT;
        String user = null;
        Path key = null;
        String passphrase = null;
        Path knownHosts = Path.of(System.getProperty("user.home"), ".ssh", "known_hosts");
        for (int i = 1; i < words.length; i++) {
            int eq = words[i].indexOf('=');
            if (eq <= 0 || eq == words[i].length() - 1) {
                throw new IllegalArgumentException("'" + words[i] + "' is not NAME=VALUE");
            }
            String name = words[i].substring(0, eq).toLowerCase(Locale.ROOT);
            String value = words[i].substring(eq + 1);
            switch (name) {
                case "user" -> user = value;
                case "key" -> key = Path.of(value);
                case "passphrase" -> passphrase = value;
                case "known-hosts" -> knownHosts = Path.of(value);
                case "port" -> port = portNumber(value);
                case "gateway" -> {
                    int colon = value.lastIndexOf(':');
                    if (colon > 0 && value.indexOf(':') == colon) {
                        gateway = value.substring(0, colon);
                        port = portNumber(value.substring(colon + 1));
                    } else {
                        gateway = value.startsWith("[") && value.endsWith("]")
                                ? value.substring(1, value.length() - 1)
                                : value;
                    }
                }
                default ->
                    throw new IllegalArgumentException("unknown ssh tunnel setting '" + name
                            + "' (known: user, key, passphrase, known-hosts, port, gateway)");
            }
        }
        return new SshTunnelRule(network, gateway, port, user, key, Optional.ofNullable(passphrase), knownHosts);
    }

    private static int portNumber(String text) {
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + text + "' is not a port number");
        }
    }

    /** The text form, passphrase left out. */
    @Override
    public String toString() {
        return network + " user=" + user + " key=" + keyFile
                + (gatewayHost == null ? " port=" + port : " gateway=" + gatewayHost + ":" + port) + " known-hosts="
                + knownHostsFile
                + (passphrase.isPresent() ? " passphrase=(set)" : "");
    }
}
