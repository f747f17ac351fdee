package io.traverse.cli.status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.traverse.cli.TraverseCommand;
import io.traverse.hub.http.HubHttpServer;
import io.traverse.hub.metrics.HubMetrics;
import io.traverse.hub.status.HubStatusReport;
import io.traverse.hub.status.HubStatusReport.HubEntry;
import io.traverse.hub.status.HubStatusReport.LinkEntry;
import io.traverse.hub.status.HubStatusReport.NameEntry;
import io.traverse.hub.status.HubStatusReport.NodeEntry;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class StatusCommandTest {
    private static final long NOW = 1_700_000_000_000L;
    private static final HubStatusReport REPORT = new HubStatusReport(HubStatusReport.FORMAT_VERSION, NOW,
            new HubEntry("hubA", "alpha", 42, List.of("127.0.0.1:17000"), 0, null),
            List.of(new HubEntry("hubA", "alpha", 42, List.of("127.0.0.1:17000"), 0, null),
                    new HubEntry("hubC", "gamma", 9, List.of("127.0.0.3:17000"), 2, "hubB"),
                    new HubEntry("hubB", "beta", 7, List.of(), 1, "hubB"),
                    new HubEntry("hubD", "delta", 3, List.of("127.0.0.4:17000"), -1, null)),
            List.of(new LinkEntry("hub", "hubB", "beta", "in", "127.0.0.2:40100", 0.25, NOW - 125_000)),
            List.of(new NodeEntry("node1", "hubA", "tv1-node1.a127-0-0-1p5000", "127.0.0.1:40000"),
                    new NodeEntry("node2", "hubC", "tv1-node2.a127-0-0-3p5000", null)),
            List.of(new NameEntry("db", "node2", 5432, "hubC")));

    private record Run(int exitCode, String out, String err) {
    }

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = new CommandLine(new TraverseCommand());
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        int code = cli.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    @Test
    void printsHubsRoutesLinksNodesAndNamesFromALiveHttpPort() throws Exception {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        HubMetrics metrics = new HubMetrics(() -> 1, () -> 1, () -> 4, () -> 3, () -> 1);
        try (HubHttpServer server = HubHttpServer.start(new InetSocketAddress("127.0.0.1", 0), group,
                NioServerSocketChannel.class, () -> REPORT, metrics)) {
            Run run = run("status", "127.0.0.1:" + server.localAddress().getPort());
            assertThat(run.exitCode()).as(run.err()).isZero();
            String[] lines = run.out().split("\n");
            assertThat(lines[0]).isEqualTo("hub alpha (hubA), state 42, links on 127.0.0.1:17000");
            assertThat(lines[1]).isEqualTo("4 hubs known, 3 reachable; 1 node here, 2 in the network; 1 name");
            assertThat(run.out())
                    .containsPattern("alpha +hubA +this hub")
                    .containsPattern("beta +hubB +1 +beta +7 +\\(dials out only\\)")
                    .containsPattern("gamma +hubC +2 +beta +9 +127\\.0\\.0\\.3:17000")
                    .containsPattern("delta +hubD +unreachable")
                    .containsPattern("hub +beta +in +127\\.0\\.0\\.2:40100 +0\\.25 ms +2 min 5 s")
                    .containsPattern("node2 +gamma +- +tv1-node2")
                    .containsPattern("db +node2 +5432 +gamma");
            assertThat(run.out().indexOf("beta   ")).as("routes sorted by distance")
                    .isLessThan(run.out().indexOf("gamma  "));

            Run json = run("status", "--json", "http://127.0.0.1:" + server.localAddress().getPort());
            assertThat(json.exitCode()).isZero();
            assertThat(json.out()).contains("\"formatVersion\" : 1").contains("\"nextHopId\" : \"hubB\"");
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    @Test
    void aHubThatDoesNotAnswerGivesAClearMessage() throws Exception {
        int freePort;
        try (ServerSocket probe = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            freePort = probe.getLocalPort();
        }
        Run run = run("status", "127.0.0.1:" + freePort);
        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.err()).contains("no hub HTTP port answers at 127.0.0.1:" + freePort);
        assertThat(run("status", "not a host").err()).contains("not a hub address");
    }

    @Test
    void hubArgumentForms() {
        assertThat(StatusCommand.statusUri("hub1").toString()).isEqualTo("http://hub1:17080/status");
        assertThat(StatusCommand.statusUri("hub1:9000").toString()).isEqualTo("http://hub1:9000/status");
        assertThat(StatusCommand.statusUri("::1").toString()).isEqualTo("http://[::1]:17080/status");
        assertThat(StatusCommand.statusUri("[::1]:9000").toString()).isEqualTo("http://[::1]:9000/status");
        assertThat(StatusCommand.statusUri("http://h:1/").toString()).isEqualTo("http://h:1/status");
        assertThatThrownBy(() -> StatusCommand.statusUri("a b")).hasMessageContaining("not a hub address: 'a b'");
    }
}
