package io.traverse.cli.perf;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.traverse.cli.TraverseCommand;
import io.traverse.testbed.Firewall;
import io.traverse.testbed.Host;
import io.traverse.testbed.HostCapabilities;
import io.traverse.testbed.HubAgent;
import io.traverse.testbed.Site;
import io.traverse.testbed.Testbed;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code traverse perf} across real NAT: two perf servers, one on a public host and
 * one behind a NAT that drops what comes in, each under a name; a client behind another such NAT
 * measures both with {@code --json}. Every number comes from connections whose bytes were checked
 * both ways. Needs root (skipped otherwise; CI runs it as root).
 */
class PerfAcrossNatTest {
    private static final Logger log = LoggerFactory.getLogger(PerfAcrossNatTest.class);
    private static final String TOKEN = "perf-token";
    private static final long BYTES = 1 << 20;

    @Test
    @Timeout(180)
    void measuresEveryModuleThatGetsThroughAndPlainTcpWhereItDoes() throws Exception {
        HostCapabilities host = HostCapabilities.probe();
        Assumptions.assumeTrue(host.isRoot(), "Skipped: the testbed needs root (CI runs this as root)");
        assertThat(host.missingTools()).as("tools the testbed needs").isEmpty();
        try (Testbed testbed = Testbed.create()) {
            Host hubHost = testbed.internet().host("hub");
            Host publicHost = testbed.internet().host("public");
            Site serverSite = testbed.site("site-s", "10.0.11.0/24");
            Site clientSite = testbed.site("site-c", "10.0.12.0/24");
            serverSite.router().firewall(Firewall.dropInbound());
            clientSite.router().firewall(Firewall.dropInbound());
            Host natted = serverSite.host("server", "10.0.11.2");
            Host client = clientSite.host("client", "10.0.12.2");
            String hub = HubAgent.startOn(hubHost, 17000, TOKEN);

            Process publicServer =
                    perf(publicHost, "perf", "serve", "--name", "perf-public", "--hub", hub, "--token", TOKEN);
            Process nattedServer =
                    perf(natted, "perf", "serve", "--name", "perf-natted", "--hub", hub, "--token", TOKEN);
            awaitLine(publicServer, "perf server ");
            awaitLine(nattedServer, "perf server ");

            Map<String, JsonNode> toPublic = measure(client, "perf-public", hub);
            assertThat(toPublic.get("direct").get("ok").asBoolean())
                    .as("%s", toPublic)
                    .isTrue();
            assertThat(toPublic.get("routed").get("ok").asBoolean())
                    .as("%s", toPublic)
                    .isTrue();
            assertThat(toPublic.get("plain").get("ok").asBoolean())
                    .as("plain TCP reaches a public host: %s", toPublic)
                    .isTrue();
            assertThat(toPublic.get("reverse").get("ok").asBoolean())
                    .as("nobody can dial back behind this NAT")
                    .isFalse();
            checkNumbers(toPublic.get("direct"));
            checkNumbers(toPublic.get("plain"));

            Map<String, JsonNode> toNatted = measure(client, "perf-natted", hub);
            assertThat(toNatted.get("routed").get("ok").asBoolean())
                    .as("%s", toNatted)
                    .isTrue();
            assertThat(toNatted.get("direct").get("ok").asBoolean())
                    .as("its NAT drops what comes in")
                    .isFalse();
            assertThat(toNatted).as("plain TCP does not get through its NAT").doesNotContainKey("plain");
            checkNumbers(toNatted.get("routed"));
        }
    }

    private static void checkNumbers(JsonNode r) {
        assertThat(r.get("bytesVerified").asLong()).isEqualTo(2 * BYTES);
        assertThat(r.get("firstSetupMs").asDouble()).isPositive();
        assertThat(r.get("cachedSetupMs").asDouble()).isPositive();
        assertThat(r.get("rttP50Us").asDouble())
                .isPositive()
                .isLessThanOrEqualTo(r.get("rttP99Us").asDouble());
        assertThat(r.get("upMBps").asDouble()).isPositive();
        assertThat(r.get("downMBps").asDouble()).isPositive();
    }

    /** Runs {@code traverse perf NAME --json} on {@code host}; the results by module. */
    private static Map<String, JsonNode> measure(Host host, String name, String hub) throws Exception {
        Process p = perf(
                host,
                "perf",
                name,
                "--hub",
                hub,
                "--token",
                TOKEN,
                "--bytes",
                Long.toString(BYTES),
                "--pings",
                "200",
                "--timeout",
                "5s",
                "--json");
        CompletableFuture<String> stdout = CompletableFuture.supplyAsync(() -> readAll(p));
        assertThat(p.waitFor(120, TimeUnit.SECONDS))
                .as("traverse perf finished")
                .isTrue();
        String json = stdout.get(10, TimeUnit.SECONDS);
        log.info("traverse perf {} from {}:\n{}", name, host, json);
        JsonNode report = new ObjectMapper().readTree(json);
        Map<String, JsonNode> byModule = new HashMap<>();
        for (JsonNode r : report.get("results")) {
            byModule.put(r.get("module").asText(), r);
        }
        return byModule;
    }

    private static Process perf(Host host, String... args) {
        List<String> argv = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                TraverseCommand.class.getName()));
        argv.addAll(List.of(args));
        return host.namespace().start(new ProcessBuilder(argv).redirectError(ProcessBuilder.Redirect.DISCARD));
    }

    private static void awaitLine(Process p, String prefix) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            if (line.startsWith(prefix)) {
                return;
            }
        }
        throw new IOException("the perf server ended before it served");
    }

    private static String readAll(Process p) {
        try {
            return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return e.toString();
        }
    }
}
