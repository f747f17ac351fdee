package io.traverse.hub;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.sshd.common.config.keys.PublicKeyEntry;
import org.apache.sshd.common.session.Session;
import org.apache.sshd.common.util.net.SshdSocketAddress;
import org.apache.sshd.server.SshServer;
import org.apache.sshd.server.config.keys.AuthorizedKeysAuthenticator;
import org.apache.sshd.server.forward.StaticDecisionForwardingFilter;
import org.apache.sshd.server.forward.TcpForwardingFilter;
import org.apache.sshd.server.keyprovider.SimpleGeneratorHostKeyProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A hub dials its peer through an sshd (embedded MINA) when an SSH tunnel rule covers the peer's
 * address: the link comes up, and the sshd saw the forwarded connection to the peer's port.
 * The testbed's HubLinkThroughSshTest does the same with OpenSSH across a firewall.
 */
@Timeout(60)
class HubLinkThroughSshTest {
    @TempDir
    Path dir;

    private final TestHubs hubs = new TestHubs();
    private SshServer sshd;

    @AfterEach
    void stop() throws IOException {
        hubs.close();
        if (sshd != null) {
            sshd.stop(true);
        }
    }

    @Test
    void aPeerCoveredByATunnelRuleIsLinkedThroughTheSshd() throws Exception {
        Path key = dir.resolve("id_rsa");
        Process keygen = new ProcessBuilder(
                        "ssh-keygen",
                        "-q",
                        "-t",
                        "rsa",
                        "-b",
                        "2048",
                        "-m",
                        "PEM",
                        "-N",
                        "hub-pass",
                        "-f",
                        key.toString())
                .redirectErrorStream(true)
                .start();
        assertThat(keygen.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(keygen.exitValue()).isZero();
        List<String> forwarded = new CopyOnWriteArrayList<>();
        sshd = SshServer.setUpDefaultServer();
        sshd.setHost("127.0.0.1");
        sshd.setPort(0);
        sshd.setKeyPairProvider(new SimpleGeneratorHostKeyProvider(dir.resolve("host.ser")));
        sshd.setPublickeyAuthenticator(new AuthorizedKeysAuthenticator(dir.resolve("id_rsa.pub")));
        sshd.setForwardingFilter(new StaticDecisionForwardingFilter(true) {
            @Override
            public boolean canConnect(TcpForwardingFilter.Type type, SshdSocketAddress address, Session session) {
                forwarded.add(address.getHostName() + ":" + address.getPort());
                return true;
            }
        });
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

        Hub far = hubs.dialOnly("ssh-far");
        int farPort = far.linkAddress().getPort();
        Hub near = hubs.start(
                "ssh-near",
                b -> b.advertisedAddresses(List.of())
                        .peer("127.0.0.1:" + farPort)
                        .sshTunnel("127.0.0.1/32 user=hub key=" + key + " passphrase=hub-pass gateway=127.0.0.1:"
                                + sshd.getPort() + " known-hosts=" + knownHosts));

        await().atMost(Duration.ofSeconds(20))
                .untilAsserted(() -> assertThat(near.status().hubLinks())
                        .extracting(HubStatus.HubLinkStatus::peerId)
                        .containsExactly(far.id()));
        assertThat(far.status().hubLinks())
                .extracting(HubStatus.HubLinkStatus::peerId)
                .containsExactly(near.id());
        assertThat(forwarded).contains("127.0.0.1:" + farPort);
    }
}
