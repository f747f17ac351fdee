package io.traverse.bench.matrix;

import static org.assertj.core.api.Assertions.assertThat;

import io.traverse.testbed.HostCapabilities;
import io.traverse.testbed.NetworkNamespace;
import io.traverse.testbed.Testbed;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Closes a matrix test's testbed and checks that its namespaces and every process it started are gone. */
final class MatrixTeardown {
    private MatrixTeardown() {}

    static void closeAndCheck(Testbed testbed) {
        List<NetworkNamespace> made = testbed.namespaces();
        testbed.close();
        List<String> existing = namespacesNow();
        assertThat(made).as("namespaces of the matrix").isNotEmpty();
        for (NetworkNamespace ns : made) {
            assertThat(existing)
                    .as("namespaces after the testbed closed")
                    .noneMatch(line -> line.startsWith(ns.name()));
        }
        assertThat(ProcessHandle.current()
                        .descendants()
                        .filter(ProcessHandle::isAlive)
                        .map(ph -> ph.info().commandLine().orElse("pid " + ph.pid()))
                        .toList())
                .as("processes (hubs, nodes, switch) after the testbed closed")
                .isEmpty();
    }

    private static List<String> namespacesNow() {
        try {
            Process p = new ProcessBuilder(HostCapabilities.probe().tool("ip"), "netns", "list")
                    .redirectErrorStream(true)
                    .start();
            String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
            return out.lines().toList();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
