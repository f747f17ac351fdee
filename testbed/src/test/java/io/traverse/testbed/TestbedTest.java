package io.traverse.testbed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The testbed's own promises: everything it made goes away, commands fail loudly, addresses stay in range. */
@Timeout(60)
class TestbedTest {
    @RegisterExtension
    final FreshTestbed testbed = new FreshTestbed();

    @Test
    void closeStopsProcessesAndRemovesNamespaces() throws Exception {
        NetworkNamespace ns = testbed.get().namespace("scratch");
        Process sleeper = ns.start(new ProcessBuilder("sleep", "600"));
        assertThat(TestbedPrerequisites.existingNamespaces()).contains(ns.name());
        assertThat(ns.name())
                .startsWith(Testbed.NAME_PREFIX + ProcessHandle.current().pid() + "-")
                .endsWith("-scratch");

        testbed.get().close();

        assertThat(sleeper.waitFor(5, TimeUnit.SECONDS))
                .as("process in the namespace stopped")
                .isTrue();
        assertThat(TestbedPrerequisites.existingNamespaces()).doesNotContain(ns.name());
    }

    @Test
    void namespacesOfDeadRunsAreRemovedAndThoseOfLiveRunsKept() throws Exception {
        Process finished = new ProcessBuilder("true").start();
        finished.waitFor(5, TimeUnit.SECONDS);
        String stale = Testbed.NAME_PREFIX + finished.pid() + "-1-stale";
        String live = Testbed.NAME_PREFIX + ProcessHandle.current().pid() + "-999-live";
        String ip = testbed.get().host().tool("ip");
        try {
            HostCommand.run(List.of(ip, "netns", "add", stale), null, Duration.ofSeconds(10));
            HostCommand.run(List.of(ip, "netns", "add", live), null, Duration.ofSeconds(10));

            assertThat(Testbed.removeStale()).contains(stale).doesNotContain(live);

            assertThat(TestbedPrerequisites.existingNamespaces())
                    .doesNotContain(stale)
                    .contains(live);
        } finally {
            HostCommand.runAllowingFailure(List.of(ip, "netns", "delete", stale), null, Duration.ofSeconds(10));
            HostCommand.runAllowingFailure(List.of(ip, "netns", "delete", live), null, Duration.ofSeconds(10));
        }
    }

    @Test
    void buildingSitesAddsNoInterfaceToTheHostsOwnNamespace() {
        String ip = testbed.get().host().tool("ip");
        String before = HostCommand.run(List.of(ip, "-o", "link", "show"), null, Duration.ofSeconds(10))
                .stdout();
        Site site = testbed.get().site("site", "10.0.0.0/24");
        site.host("h");
        testbed.get().internet().host("pub");
        String after = HostCommand.run(List.of(ip, "-o", "link", "show"), null, Duration.ofSeconds(10))
                .stdout();
        assertThat(interfaceNames(after)).isEqualTo(interfaceNames(before));
    }

    private static List<String> interfaceNames(String ipLinkOutput) {
        return ipLinkOutput.lines().map(l -> l.split(":")[1].trim()).sorted().toList();
    }

    @Test
    void aFailedCommandNamesTheCommandItsExitCodeAndItsStderr() {
        NetworkNamespace ns = testbed.get().namespace("scratch");
        assertThatThrownBy(() -> ns.ip("route", "add", "10.9.0.0/16", "via", "10.8.0.1"))
                .isInstanceOf(CommandFailedException.class)
                .hasMessageContaining("route add 10.9.0.0/16 via 10.8.0.1")
                .hasMessageContaining("exit code 2")
                .hasMessageContaining("stderr: ");
        assertThatThrownBy(() -> ns.exec(Duration.ofMillis(300), null, List.of("sleep", "5")))
                .isInstanceOf(CommandFailedException.class)
                .hasMessageContaining("did not finish within 300 ms")
                .hasMessageContaining("sleep 5");
    }

    @Test
    void publicAddressesComeFromTheBenchmarkingRangeOnly() {
        Site one = testbed.get().site("one", "10.0.0.0/24");
        Site two = testbed.get().site("two", "10.0.0.0/24");
        Host pub = testbed.get().internet().host("pub");
        assertThat(List.of(one.router().publicAddress(), two.router().publicAddress(), pub.address()))
                .allSatisfy(a -> assertThat(a.getHostAddress()).matches("198\\.1[89]\\.\\d+\\.\\d+"))
                .doesNotHaveDuplicates();
        NetworkNamespace other = testbed.get().namespace("other");
        assertThatThrownBy(() -> testbed.get().internet().attach(other, "eth0", "8.8.8.8"))
                .hasMessageContaining("not a host address of network 198.18.0.0/15");
        // Private ranges may repeat across sites, never within one.
        assertThat(one.host("x", "10.0.0.7").address())
                .isEqualTo(two.host("x", "10.0.0.7").address());
        assertThatThrownBy(() -> one.host("y", "10.0.0.7")).hasMessageContaining("already in use");
    }
}
