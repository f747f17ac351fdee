package io.traverse.testbed;

import io.traverse.hub.Hub;
import io.traverse.hub.HubConfig;
import java.io.IOException;

/**
 * A hub in its own JVM, started by the NAT tests inside a namespace ({@link #startOn}): prints
 * {@code hub HOST:PORT} once it listens, and runs until its standard input closes.
 *
 * <pre>java io.traverse.testbed.HubAgent BIND-ADDRESS PORT TOKEN</pre>
 */
public final class HubAgent {
    private HubAgent() {
    }

    /** Starts a hub agent on {@code host} (in its namespace, on this class path); returns its HOST:PORT once it listens. */
    static String startOn(Host host, int port, String token) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-cp", System.getProperty("java.class.path"),
                HubAgent.class.getName(), host.address().getHostAddress(), Integer.toString(port), token);
        pb.redirectError(ProcessBuilder.Redirect.INHERIT);
        Process hub = host.namespace().start(pb);
        java.io.BufferedReader out = new java.io.BufferedReader(new java.io.InputStreamReader(hub.getInputStream(),
                java.nio.charset.StandardCharsets.UTF_8));
        String first = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return out.readLine();
            } catch (IOException e) {
                return null;
            }
        }).get(30, java.util.concurrent.TimeUnit.SECONDS);
        if (first == null || !first.startsWith("hub ")) {
            throw new IllegalStateException("the hub agent on " + host + " did not start: " + first);
        }
        return first.substring("hub ".length());
    }

    public static void main(String[] args) throws IOException {
        try (Hub hub = Hub.start(HubConfig.builder().bindAddress(args[0]).port(Integer.parseInt(args[1])).token(args[2])
                .name("testbed-hub").httpPort(-1).build())) {
            System.out.println("hub " + args[0] + ":" + hub.linkAddress().getPort());
            System.out.flush();
            while (System.in.read() >= 0) {
                // until the test closes our input (or the testbed stops us)
            }
        }
    }
}
