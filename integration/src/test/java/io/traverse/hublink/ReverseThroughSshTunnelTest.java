package io.traverse.hublink;

import static org.assertj.core.api.Assertions.assertThat;

import io.traverse.ConnectionInfo;
import io.traverse.Traverse;
import io.traverse.TraverseServerSocket;
import io.traverse.VirtualSocketAddress;
import io.traverse.connect.InBandEndOfStreamSocket;
import io.traverse.firewall.FirewallRule;
import io.traverse.hub.Hub;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
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
 * The reverse module through an SSH tunnel: a node at a site that only SSH reaches
 * (its firewall drops every source but the sshd's) connects to a node that nobody can dial; the
 * target dials back through the sshd under its own {@code traverse.ssh.tunnels} rule, exactly as
 * its direct CONNECT would, with a REVERSE handshake asking for in-band end-of-stream. Both ends
 * get an {@link InBandEndOfStreamSocket}; data and half-close cross both ways.
 */
@Timeout(90)
class ReverseThroughSshTunnelTest {
    private static final String PASSPHRASE = "s3cret-phrase";
    /** The SSH-only site's node (the matrix's Hiroshi): it connects, and must be dialled back. */
    private static final String SSH_ONLY_IP = "127.0.6.1";
    /** A node that takes no connections at all (it dials out), with the tunnel rule to the SSH-only site. */
    private static final String DIALS_OUT_IP = "127.0.6.2";

    private static final int SENT = 3_000_001;
    private static final int ANSWERED = 1_500_007;

    @TempDir
    Path dir;

    private final LoopbackHubNetwork net = new LoopbackHubNetwork();
    private SshServer sshd;
    private String rule;

    @BeforeEach
    void startSshd() throws Exception {
        Path key = dir.resolve("id_rsa");
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
                key.toString());
        Path authorized = dir.resolve("authorized_keys");
        Files.copy(dir.resolve("id_rsa.pub"), authorized);
        sshd = SshServer.setUpDefaultServer();
        sshd.setHost("127.0.0.1");
        sshd.setPort(0);
        sshd.setKeyPairProvider(new SimpleGeneratorHostKeyProvider(dir.resolve("host-key.ser")));
        sshd.setPublickeyAuthenticator(new AuthorizedKeysAuthenticator(authorized));
        sshd.setForwardingFilter(AcceptAllForwardingFilter.INSTANCE);
        sshd.start();
        Path knownHosts = dir.resolve("known_hosts");
        Files.writeString(
                knownHosts,
                "[127.0.0.1]:" + sshd.getPort() + " "
                        + PublicKeyEntry.toString(sshd.getKeyPairProvider()
                                .loadKeys(null)
                                .iterator()
                                .next()
                                .getPublic())
                        + "\n");
        rule = SSH_ONLY_IP + "/32 user=traverse key=" + key + " passphrase=" + PASSPHRASE + " gateway=127.0.0.1:"
                + sshd.getPort() + " known-hosts=" + knownHosts;
    }

    @AfterEach
    void stop() throws Exception {
        try {
            net.close();
        } finally {
            sshd.stop(true);
        }
    }

    @Test
    void theDialBackGoesThroughTheDiallersTunnelWithDataAndHalfCloseBothWays() throws Exception {
        Hub hub = net.hub("ssh-reverse-hub");
        // Only the sshd (it connects from 127.0.0.1) gets in: a plain dial-back's SYN is dropped.
        Traverse sshOnly = node(hub, SSH_ONLY_IP, "", FirewallRule.allow("127.0.0.1/32"), FirewallRule.drop("all"));
        Traverse diallingOut = node(hub, DIALS_OUT_IP, rule, FirewallRule.deny("all"));
        TraverseServerSocket listening = diallingOut.serverSocketFactory().createServerSocket(7100);
        VirtualSocketAddress target = diallingOut.address(7100);

        for (int round = 0; round < 2; round++) { // the second reuses the SSH session and its forward
            CompletableFuture<byte[]> served = CompletableFuture.supplyAsync(() -> {
                try (Socket s = listening.accept()) {
                    assertThat(s).isInstanceOf(InBandEndOfStreamSocket.class);
                    byte[] received = SeededStreams.digestToEof(s.getInputStream(), () -> 65_536);
                    // Its input ended, its output still works: a half-close, not a close.
                    SeededStreams.write(SeededStreams.EVEN, s.getOutputStream(), 2, ANSWERED);
                    s.shutdownOutput();
                    return received;
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            try (Socket s = sshOnly.socketFactory().createSocket()) {
                s.connect(target, 15_000);
                ConnectionInfo info = sshOnly.connectionInfo(s).orElseThrow();
                assertThat(info.module()).as("round %d", round).isEqualTo("reverse");
                // Dialled back by the sshd on the dialler's behalf, not by the dialler's own address; that
                // this end, too, carries end-of-stream in-band the digests and EOFs below show.
                assertThat(s.getInetAddress().getHostAddress()).isEqualTo("127.0.0.1");
                SeededStreams.write(SeededStreams.EVEN, s.getOutputStream(), 1 + round, SENT);
                s.shutdownOutput();
                byte[] answer = SeededStreams.digestToEof(s.getInputStream(), () -> 65_536);
                assertThat(served.get(60, TimeUnit.SECONDS))
                        .isEqualTo(SeededStreams.expectedDigest(SeededStreams.EVEN, 1 + round, SENT));
                assertThat(answer).isEqualTo(SeededStreams.expectedDigest(SeededStreams.EVEN, 2, ANSWERED));
            }
        }
    }

    @Test
    void withEncryptAllTlsRunsInsideTheInBandFramingOfTheTunnelledDialBack() throws Exception {
        Hub hub = net.hub("ssh-reverse-tls-hub");
        Traverse sshOnly = node(
                hub,
                SSH_ONLY_IP,
                "",
                Duration.ofMillis(100),
                "all",
                FirewallRule.allow("127.0.0.1/32"),
                FirewallRule.drop("all"));
        Traverse diallingOut = node(hub, DIALS_OUT_IP, rule, Duration.ofMillis(100), "all", FirewallRule.deny("all"));
        TraverseServerSocket listening = diallingOut.serverSocketFactory().createServerSocket(7101);
        CompletableFuture<byte[]> served = CompletableFuture.supplyAsync(() -> {
            try (Socket s = listening.accept()) {
                assertThat(s).isInstanceOf(javax.net.ssl.SSLSocket.class);
                assertThat(diallingOut.connectionInfo(s).orElseThrow().protection())
                        .isEqualTo(io.traverse.Protection.TLS);
                byte[] received = SeededStreams.digestToEof(s.getInputStream(), () -> 65_536);
                SeededStreams.write(SeededStreams.EVEN, s.getOutputStream(), 2, ANSWERED);
                s.shutdownOutput();
                return received;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        try (Socket s = sshOnly.socketFactory().createSocket()) {
            s.connect(diallingOut.address(7101), 15_000);
            ConnectionInfo info = sshOnly.connectionInfo(s).orElseThrow();
            assertThat(info.module()).isEqualTo("reverse");
            assertThat(info.protection()).isEqualTo(io.traverse.Protection.TLS);
            SeededStreams.write(SeededStreams.EVEN, s.getOutputStream(), 1, SENT);
            s.shutdownOutput();
            byte[] answer = SeededStreams.digestToEof(s.getInputStream(), () -> 65_536);
            assertThat(served.get(60, TimeUnit.SECONDS))
                    .isEqualTo(SeededStreams.expectedDigest(SeededStreams.EVEN, 1, SENT));
            assertThat(answer).isEqualTo(SeededStreams.expectedDigest(SeededStreams.EVEN, 2, ANSWERED));
        }
    }

    @Test
    void aFirstDialBackToANodeNeverMetThereStartsThroughTheTunnelBesideThePlainDial() throws Exception {
        Hub hub = net.hub("ssh-reverse-cold-hub");
        Traverse sshOnly = node(hub, SSH_ONLY_IP, "", FirewallRule.allow("127.0.0.1/32"), FirewallRule.drop("all"));
        // A 5 s stagger at the dialler: a tunnel tried only a stagger after the dropped plain SYN would come too late
        // for
        // the 3 s connect (in the six-site matrix, routed starts a 100 ms stagger after reverse and relays it first).
        Traverse diallingOut = node(hub, DIALS_OUT_IP, rule, Duration.ofSeconds(5), FirewallRule.deny("all"));
        TraverseServerSocket listening = diallingOut.serverSocketFactory().createServerSocket(7101);
        CompletableFuture<byte[]> served = CompletableFuture.supplyAsync(() -> {
            try (Socket s = listening.accept()) {
                return SeededStreams.digestToEof(s.getInputStream(), () -> 65_536);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        try (Socket s = sshOnly.socketFactory().createSocket()) {
            s.connect(diallingOut.address(7101), 3_000);
            assertThat(sshOnly.connectionInfo(s).orElseThrow().module()).isEqualTo("reverse");
            SeededStreams.write(SeededStreams.EVEN, s.getOutputStream(), 3, SENT);
            s.shutdownOutput();
            assertThat(served.get(60, TimeUnit.SECONDS))
                    .isEqualTo(SeededStreams.expectedDigest(SeededStreams.EVEN, 3, SENT));
        }
    }

    private Traverse node(Hub hub, String ip, String tunnels, FirewallRule... firewall) throws Exception {
        return node(hub, ip, tunnels, Duration.ofMillis(100), firewall);
    }

    private Traverse node(Hub hub, String ip, String tunnels, Duration stagger, FirewallRule... firewall)
            throws Exception {
        return node(hub, ip, tunnels, stagger, "relayed", firewall);
    }

    private Traverse node(
            Hub hub, String ip, String tunnels, Duration stagger, String encrypt, FirewallRule... firewall)
            throws Exception {
        var config = LoopbackHubNetwork.config(hub)
                .set("traverse.encrypt", encrypt)
                .bind(ip)
                .modules("direct", "reverse")
                .firewall(firewall)
                .connectTimeout(Duration.ofSeconds(10))
                .connectStagger(stagger);
        if (!tunnels.isEmpty()) {
            config.set("traverse.ssh.tunnels", tunnels);
        }
        Traverse node = net.node(config.build());
        assertThat(node.awaitHubLink(Duration.ofSeconds(10))).isTrue();
        return node;
    }

    private static void run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(String.join(" ", command) + ": " + output).isZero();
    }
}
