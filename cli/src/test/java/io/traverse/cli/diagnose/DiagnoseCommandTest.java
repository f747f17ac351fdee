package io.traverse.cli.diagnose;

import static org.assertj.core.api.Assertions.assertThat;

import io.traverse.Traverse;
import io.traverse.TraverseConfig;
import io.traverse.TraverseServerSocket;
import io.traverse.firewall.FirewallRule;
import io.traverse.hub.Hub;
import io.traverse.hub.HubConfig;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code traverse diagnose} against a node behind a refusing firewall: direct fails, reverse works. */
class DiagnoseCommandTest {
    private static final String TOKEN = "diagnose-token";
    private Hub hub;
    private Traverse target;
    private TraverseServerSocket server;

    @BeforeEach
    void start() throws Exception {
        hub = Hub.start(HubConfig.builder()
                .bindAddress("127.0.0.1")
                .port(0)
                .httpPort(-1)
                .name("diag-hub")
                .token(TOKEN)
                .build());
        target = Traverse.start(TraverseConfig.builder()
                .bind("127.0.0.1")
                .discovery(false)
                .token(TOKEN)
                .hubs(List.of(
                        new InetSocketAddress("127.0.0.1", hub.linkAddress().getPort())))
                .firewall(FirewallRule.deny("all"))
                .build());
        assertThat(target.awaitHubLink(Duration.ofSeconds(10))).isTrue();
        server = target.serverSocketFactory().createServerSocket("diag-svc", 4000);
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
        target.close();
        hub.close();
    }

    private Result diagnose(String what) {
        StringWriter text = new StringWriter();
        CommandLine cli = new CommandLine(new DiagnoseCommand());
        cli.setOut(new PrintWriter(text));
        int exit = cli.execute(
                what, "--hub", "127.0.0.1:" + hub.linkAddress().getPort(), "--token", TOKEN, "--timeout", "5s");
        return new Result(exit, text.toString());
    }

    private record Result(int exit, String text) {
        String line(String module) {
            return Arrays.stream(text.split("\n"))
                    .filter(l -> l.strip().startsWith(module + " "))
                    .findFirst()
                    .orElse("");
        }
    }

    @Test
    void directIsRefusedWhileReverseAndRoutedWorkWithTheReasonAndTimeOfEach() {
        Result r = diagnose("diag-svc:4000");
        assertThat(r.exit()).as(r.text()).isZero();
        assertThat(r.text())
                .contains("name diag-svc: node " + target.identity().id().orElseThrow());
        assertThat(r.line("direct")).contains("fails").contains("refused").contains(" ms");
        assertThat(r.line("reverse")).contains("works").contains(" ms");
        assertThat(r.line("routed")).contains("works").contains(" ms");
        // Loopback has no public side: splice says so instead of firing SYNs.
        assertThat(r.line("splice")).contains("fails").contains("private address");
        // The node's hub link is a TCP link: the longpoll module leaves the target to routed.
        assertThat(r.line("longpoll"))
                .contains("fails")
                .contains("longpoll: not tried (the hub link is not a long-poll session");
        assertThat(r.text()).contains("2 of 5 modules reach diag-svc");
        // The direct module's other ways in, off unless configured: said, not left for the user to guess.
        assertThat(r.text())
                .contains("port mapping: off (traverse.portmap=true asks a UPnP IGD, PCP or NAT-PMP gateway")
                .contains("ssh tunnels: none (traverse.ssh.tunnels is not set)");
    }

    @Test
    void withoutAPortAnAnswerFromTheNodeCountsAsReachingIt() {
        Result r = diagnose("diag-svc");
        assertThat(r.exit()).as(r.text()).isZero();
        assertThat(r.line("direct")).contains("fails");
        assertThat(r.line("reverse"))
                .contains("reaches the node")
                .contains("nothing listens on virtual port " + DiagnoseCommand.PROBE_PORT);
        assertThat(r.line("routed"))
                .contains("reaches the node")
                .contains("nothing listens on virtual port " + DiagnoseCommand.PROBE_PORT);
    }

    @Test
    void anUnknownNameIsSaidSoAndNoModuleIsTried() {
        Result r = diagnose("nobody-here:80");
        assertThat(r.exit()).as(r.text()).isEqualTo(1);
        assertThat(r.text()).contains("name nobody-here: not registered in the hub network");
        assertThat(r.line("direct")).isEmpty();
    }

    @Test
    void aWrongTokenIsSaidAtOnceWithTheHubsReason() {
        StringWriter text = new StringWriter();
        CommandLine cli = new CommandLine(new DiagnoseCommand());
        cli.setOut(new PrintWriter(text));
        long start = System.nanoTime();
        int exit = cli.execute(
                "diag-svc:4000", "--hub", "127.0.0.1:" + hub.linkAddress().getPort(), "--token", "not-" + TOKEN);
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(exit).as(text.toString()).isEqualTo(1);
        assertThat(text.toString())
                .contains("refused the link: wrong network token")
                .contains("name diag-svc: cannot be looked up without a hub link; no module was tried");
        // the hub's refusal ends the wait for the link (hub timeout 10 s): a couple of round trips and a node start
        assertThat(took).isLessThan(Duration.ofSeconds(8));
    }

    @Test
    void aServiceThatClosesEveryConnectionAtOnceIsNotCountedAsReached() throws Exception {
        TraverseServerSocket closing = target.serverSocketFactory().createServerSocket("diag-gone", 4001);
        Thread closer = new Thread(
                () -> {
                    while (!closing.isClosed()) {
                        try {
                            closing.accept().close(); // what 'traverse expose' does when the service behind it is down
                        } catch (java.io.IOException e) {
                            return;
                        }
                    }
                },
                "closes-at-once");
        closer.setDaemon(true);
        closer.start();
        try {
            Result r = diagnose("diag-gone:4001");
            assertThat(r.exit()).as(r.text()).isEqualTo(1);
            assertThat(r.line("reverse")).contains("service gone").contains("closed it at once");
            assertThat(r.text())
                    .contains(
                            "modules reach the node, but the service behind diag-gone:4001 closed every connection at once");
        } finally {
            closing.close();
        }
    }
}
