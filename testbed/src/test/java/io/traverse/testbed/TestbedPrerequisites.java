package io.traverse.testbed;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Assumptions;

/**
 * Namespace tests need root and the {@code ip} and {@code nft} tools. Not root: the test is skipped
 * with the reason. Root but a tool missing: the test fails, because CI runs as root and a skipped
 * testbed there would hide a broken setup.
 */
final class TestbedPrerequisites {
    private TestbedPrerequisites() {}

    static void require() {
        HostCapabilities host = HostCapabilities.probe();
        Assumptions.assumeTrue(
                host.isRoot(),
                () -> "Skipped: " + host.problem().orElse("not root") + " (CI runs these tests as root)");
        assertThat(host.missingTools())
                .as("tools the namespace testbed needs (Debian packages %s)", HostCapabilities.requiredPackages())
                .isEmpty();
    }

    /** Fails unless none of the testbed's namespaces exists any more. */
    static void assertRemoved(Testbed testbed) {
        List<String> existing = existingNamespaces();
        for (NetworkNamespace ns : testbed.namespaces()) {
            assertThat(existing).as("namespaces after the testbed closed").doesNotContain(ns.name());
        }
    }

    static List<String> existingNamespaces() {
        String ip = HostCapabilities.probe().tool("ip");
        String listing = HostCommand.run(List.of(ip, "netns", "list"), null, Duration.ofSeconds(10))
                .stdout();
        return listing.lines()
                .map(l -> l.trim().split("\\s+")[0])
                .filter(s -> !s.isEmpty())
                .toList();
    }
}
