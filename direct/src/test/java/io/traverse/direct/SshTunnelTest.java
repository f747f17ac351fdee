package io.traverse.direct;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.traverse.Traverse;
import io.traverse.TraverseServerSocket;
import io.traverse.connect.InBandEndOfStreamSocket;
import io.traverse.firewall.FirewallRule;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PublicKey;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.sshd.common.config.keys.KeyUtils;
import org.apache.sshd.common.config.keys.PublicKeyEntry;
import org.apache.sshd.server.SshServer;
import org.apache.sshd.server.config.keys.AuthorizedKeysAuthenticator;
import org.apache.sshd.server.forward.AcceptAllForwardingFilter;
import org.apache.sshd.server.keyprovider.SimpleGeneratorHostKeyProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The direct module through an SSH tunnel (paper §3.2.4), against an embedded MINA sshd on
 * loopback: the target's simulated firewall drops every source but the sshd's, as a site that
 * lets only SSH in. Half-close must reach the application both ways although SSH forwarding does
 * not carry it (in-band end-of-stream).
 */
@Timeout(60)
class SshTunnelTest {
    private static final String PASSPHRASE = "s3cret-phrase";
    private static final String TARGET_IP = "127.0.5.1";
    private static final String CLIENT_IP = "127.0.5.2";

    @TempDir
    Path dir;

    private final TestNodes nodes = new TestNodes();
    private final ExecutorService pool = Executors.newCachedThreadPool();
    private SshServer sshd;
    private PublicKey hostKey;
    private Path clientKey;

    @BeforeEach
    void startSshd() throws Exception {
        clientKey = dir.resolve("id_rsa");
        run(
                "ssh-keygen",
                "-q",
                "-t",
                "rsa",
                "-b",
                "2048",
                "-m",
                "PEM",
                "-N",
                PASSPHRASE,
                "-C",
                "traverse-test",
                "-f",
                clientKey.toString());
        Path authorized = dir.resolve("authorized_keys");
        Files.copy(dir.resolve("id_rsa.pub"), authorized);
        sshd = SshServer.setUpDefaultServer();
        sshd.setHost("127.0.0.1");
        sshd.setPort(0);
        sshd.setKeyPairProvider(new SimpleGeneratorHostKeyProvider(dir.resolve("host-key.ser")));
        sshd.setPublickeyAuthenticator(new AuthorizedKeysAuthenticator(authorized));
        sshd.setForwardingFilter(AcceptAllForwardingFilter.INSTANCE);
        sshd.start();
        hostKey = sshd.getKeyPairProvider().loadKeys(null).iterator().next().getPublic();
    }

    @AfterEach
    void stop() throws Exception {
        pool.shutdownNow();
        try {
            nodes.close();
        } finally {
            sshd.stop(true);
        }
    }

    private static void run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(String.join(" ", command) + ": " + output).isZero();
    }

    private Path knownHosts(PublicKey key) throws IOException {
        Path file = dir.resolve("known_hosts-" + System.nanoTime());
        Files.writeString(file, "[127.0.0.1]:" + sshd.getPort() + " " + PublicKeyEntry.toString(key) + "\n");
        return file;
    }

    private String rule(Path knownHosts) {
        return TARGET_IP + "/32 user=traverse key=" + clientKey + " passphrase=" + PASSPHRASE + " gateway=127.0.0.1:"
                + sshd.getPort() + " known-hosts=" + knownHosts;
    }

    /** A target that only the sshd (connecting from 127.0.0.1) may reach, and a client with the tunnel rule. */
    private Traverse[] nodesWith(String rule) throws IOException {
        Traverse target = nodes.node(
                TARGET_IP,
                b -> b.modules("direct").firewall(FirewallRule.allow("127.0.0.1/32"), FirewallRule.drop("all")));
        Traverse client = nodes.node(
                CLIENT_IP,
                b -> b.modules("direct").set("traverse.ssh.tunnels", rule).connectTimeout(Duration.ofSeconds(10)));
        return new Traverse[] {target, client};
    }

    @Test
    void dataAndHalfCloseBothWaysThroughATunnelToATargetThatOnlySshReaches() throws Exception {
        Traverse[] pair = nodesWith(rule(knownHosts(hostKey)));
        Traverse target = pair[0];
        Traverse client = pair[1];
        TraverseServerSocket server = target.serverSocketFactory().createServerSocket(7000);

        Future<Transfers.Digest[]> served = pool.submit(() -> {
            try (Socket s = server.accept()) {
                assertThat(s).isInstanceOf(InBandEndOfStreamSocket.class);
                Transfers.Digest received = Transfers.readToEof(s);
                // Its input has ended, its output still works: a half-close, not a close.
                Transfers.Digest sent = Transfers.sendAndHalfClose(s, 1_500_000, 2);
                return new Transfers.Digest[] {received, sent};
            }
        });
        for (int round = 0; round < 2; round++) { // the second reuses the session and the forward
            try (Socket s =
                    client.socketFactory().createSocket(server.virtualAddress().getHostString(), 7000)) {
                Transfers.Digest sent = Transfers.sendAndHalfClose(s, 3_000_000 + round, 1);
                Transfers.Digest back = Transfers.readToEof(s);
                Transfers.Digest[] there = served.get(30, TimeUnit.SECONDS);
                assertThat(there[0]).isEqualTo(sent);
                assertThat(back).isEqualTo(there[1]);
                assertThat(back.length()).isEqualTo(1_500_000);
            }
            if (round == 0) {
                served = pool.submit(() -> {
                    try (Socket s = server.accept()) {
                        Transfers.Digest received = Transfers.readToEof(s);
                        Transfers.Digest sent = Transfers.sendAndHalfClose(s, 1_500_000, 2);
                        return new Transfers.Digest[] {received, sent};
                    }
                });
            }
        }
    }

    @Test
    void aRuleWithAGatewayLogsInWhenTheNodeStartsAndTheFirstConnectionUsesThatSession() throws Exception {
        Traverse[] pair = nodesWith(rule(knownHosts(hostKey)));
        // No connection yet: the login at start (so that a first connection does not race it).
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(20))
                .until(() -> sshd.getActiveSessions().size() == 1);
        TraverseServerSocket server = pair[0].serverSocketFactory().createServerSocket(7004);
        Future<Transfers.Digest> served = pool.submit(() -> {
            try (Socket s = server.accept()) {
                return Transfers.readToEof(s);
            }
        });
        try (Socket s =
                pair[1].socketFactory().createSocket(server.virtualAddress().getHostString(), 7004)) {
            assertThat(pair[1].connectionInfo(s).orElseThrow().module()).isEqualTo("direct");
            Transfers.Digest sent = Transfers.sendAndHalfClose(s, 100_000, 4);
            assertThat(served.get(30, TimeUnit.SECONDS)).isEqualTo(sent);
        }
        assertThat(sshd.getActiveSessions())
                .as("the session made at start, reused")
                .hasSize(1);
    }

    @Test
    void aNodeNewlyMetBehindATunnelThatWorkedIsTriedThroughItFirst() throws Exception {
        // A 5 s stagger: a dropped plain SYN tried first would leave the tunnel no time within a 3 s connect.
        String rule = "127.0.5.0/24 user=traverse key=" + clientKey + " passphrase=" + PASSPHRASE
                + " gateway=127.0.0.1:" + sshd.getPort() + " known-hosts=" + knownHosts(hostKey);
        Traverse client = nodes.node(
                CLIENT_IP,
                b -> b.modules("direct").set("traverse.ssh.tunnels", rule).connectStagger(Duration.ofSeconds(5)));
        Traverse first = nodes.node(
                TARGET_IP,
                b -> b.modules("direct").firewall(FirewallRule.allow("127.0.0.1/32"), FirewallRule.drop("all")));
        Traverse second = nodes.node(
                "127.0.5.3",
                b -> b.modules("direct").firewall(FirewallRule.allow("127.0.0.1/32"), FirewallRule.drop("all")));
        TraverseServerSocket one = first.serverSocketFactory().createServerSocket(7005);
        TraverseServerSocket two = second.serverSocketFactory().createServerSocket(7005);
        connect(client, one, 20_000); // plain (dropped) and the tunnel side by side: nothing plain has worked there
        connect(client, two, 3_000); // a node never met: through the tunnel at once
    }

    @Test
    void aTunnelToANetworkNeverReachedPlainlyStartsBesideThePlainAttempt() throws Exception {
        // A 5 s stagger: a tunnel tried only a stagger after the dropped plain SYN would leave a 3 s connect nothing.
        String rule = rule(knownHosts(hostKey));
        Traverse target = nodes.node(
                TARGET_IP,
                b -> b.modules("direct").firewall(FirewallRule.allow("127.0.0.1/32"), FirewallRule.drop("all")));
        Traverse client = nodes.node(
                CLIENT_IP,
                b -> b.modules("direct")
                        .set("traverse.ssh.tunnels", rule)
                        .connectStagger(Duration.ofSeconds(5))
                        .connectTimeout(Duration.ofSeconds(3)));
        TraverseServerSocket server = target.serverSocketFactory().createServerSocket(7006);
        Future<Transfers.Digest> served = pool.submit(() -> {
            try (Socket s = server.accept()) {
                return Transfers.readToEof(s);
            }
        });
        try (Socket s =
                client.socketFactory().createSocket(server.virtualAddress().getHostString(), 7006)) {
            assertThat(s).as("through the tunnel").isInstanceOf(InBandEndOfStreamSocket.class);
            Transfers.Digest sent = Transfers.sendAndHalfClose(s, 200_000, 5);
            assertThat(served.get(30, TimeUnit.SECONDS)).isEqualTo(sent);
        }
    }

    @Test
    void whereThePlainAddressLetsTheNodeInThePlainAttemptBesideTheTunnelWinsAndGoesFirstFromThen() throws Exception {
        String rule = rule(knownHosts(hostKey));
        Traverse target = nodes.node(TARGET_IP, b -> b.modules("direct"));
        Traverse client = nodes.node(
                CLIENT_IP,
                b -> b.modules("direct")
                        .set("traverse.ssh.tunnels", rule)
                        .connectStagger(Duration.ofSeconds(5))
                        .connectTimeout(Duration.ofSeconds(10)));
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(20))
                .until(() -> sshd.getActiveSessions().size() == 1);
        TraverseServerSocket server = target.serverSocketFactory().createServerSocket(7007);
        for (int round = 0; round < 2; round++) { // the first races both, the second dials plainly first
            Future<Transfers.Digest> served = pool.submit(() -> {
                try (Socket s = server.accept()) {
                    return Transfers.readToEof(s);
                }
            });
            try (Socket s =
                    client.socketFactory().createSocket(server.virtualAddress().getHostString(), 7007)) {
                assertThat(s)
                        .as("round %d: a kernel socket to the target, not the tunnel's", round)
                        .isNotInstanceOf(InBandEndOfStreamSocket.class);
                Transfers.Digest sent = Transfers.sendAndHalfClose(s, 100_000, 6 + round);
                assertThat(served.get(30, TimeUnit.SECONDS)).isEqualTo(sent);
            }
            if (round == 0) {
                // The tunnelled rival got through too, but held: the target dropped it unseen when it lost.
                server.setSoTimeout(1_000);
                assertThatThrownBy(server::accept)
                        .as("a second connection handed to accept()")
                        .isInstanceOf(java.net.SocketTimeoutException.class);
                server.setSoTimeout(0);
            }
        }
    }

    @Test
    void withoutAGatewayTheTargetsOwnSshdForwardsToItsOwnAddress() throws Exception {
        // The paper's form: log in at the target machine itself and forward to its own port.
        SshServer own = SshServer.setUpDefaultServer();
        own.setHost(TARGET_IP);
        own.setPort(0);
        own.setKeyPairProvider(sshd.getKeyPairProvider());
        own.setPublickeyAuthenticator(new AuthorizedKeysAuthenticator(dir.resolve("authorized_keys")));
        own.setForwardingFilter(AcceptAllForwardingFilter.INSTANCE);
        own.start();
        try {
            Path known = dir.resolve("known_hosts-own");
            Files.writeString(
                    known, "[" + TARGET_IP + "]:" + own.getPort() + " " + PublicKeyEntry.toString(hostKey) + "\n");
            Traverse[] pair = nodesWith(TARGET_IP + "/32 user=traverse key=" + clientKey + " passphrase=" + PASSPHRASE
                    + " port=" + own.getPort() + " known-hosts=" + known);
            TraverseServerSocket server = pair[0].serverSocketFactory().createServerSocket(7003);
            Future<Transfers.Digest> served = pool.submit(() -> {
                try (Socket s = server.accept()) {
                    assertThat(s).isInstanceOf(InBandEndOfStreamSocket.class);
                    Transfers.Digest received = Transfers.readToEof(s);
                    s.getOutputStream().write(received.sha256().getBytes());
                    return received;
                }
            });
            try (Socket s =
                    pair[1].socketFactory().createSocket(server.virtualAddress().getHostString(), 7003)) {
                Transfers.Digest sent = Transfers.sendAndHalfClose(s, 777_777, 3);
                assertThat(new String(s.getInputStream().readAllBytes())).isEqualTo(sent.sha256());
                assertThat(served.get(30, TimeUnit.SECONDS)).isEqualTo(sent);
            }
        } finally {
            own.stop(true);
        }
    }

    @Test
    void unknownHostKeyIsRefusedNamingTheHostAndTheFingerprint() throws Exception {
        Path empty = dir.resolve("known_hosts-empty");
        Files.writeString(empty, "");
        Traverse[] pair = nodesWith(rule(empty));
        TraverseServerSocket server = pair[0].serverSocketFactory().createServerSocket(7001);
        String fingerprint = KeyUtils.getFingerPrint(hostKey);
        assertThat(fingerprint).startsWith("SHA256:");
        assertThatThrownBy(() -> connect(pair[1], server, 3_000))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("unknown host key for [127.0.0.1]:" + sshd.getPort())
                .hasMessageContaining(fingerprint)
                .hasMessageContaining(empty.toString());
    }

    @Test
    void changedHostKeyIsRefusedNamingTheHostAndBothFingerprints() throws Exception {
        // Another key of the same type: a key of another type would count as not known, not as changed.
        int bits = hostKey instanceof java.security.interfaces.ECPublicKey ec
                ? ec.getParams().getCurve().getField().getFieldSize()
                : 2048;
        PublicKey other =
                KeyUtils.generateKeyPair(KeyUtils.getKeyType(hostKey), bits).getPublic();
        Path stale = knownHosts(other);
        Traverse[] pair = nodesWith(rule(stale));
        TraverseServerSocket server = pair[0].serverSocketFactory().createServerSocket(7002);
        assertThatThrownBy(() -> connect(pair[1], server, 3_000))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("host key mismatch for [127.0.0.1]:" + sshd.getPort())
                .hasMessageContaining(KeyUtils.getFingerPrint(hostKey))
                .hasMessageContaining(KeyUtils.getFingerPrint(other));
    }

    @Test
    void wrongPassphraseIsAClearConfigurationError() throws Exception {
        assertThatThrownBy(() ->
                        nodesWith(rule(knownHosts(hostKey)).replace("passphrase=" + PASSPHRASE, "passphrase=wrong")))
                .hasMessageContaining("cannot load key " + clientKey);
    }

    private static void connect(Traverse client, TraverseServerSocket server, int timeoutMillis) throws IOException {
        try (Socket s = client.socketFactory().createSocket()) {
            s.connect(server.virtualAddress(), timeoutMillis);
        }
    }
}
