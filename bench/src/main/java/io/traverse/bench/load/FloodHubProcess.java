package io.traverse.bench.load;

import io.traverse.hub.Hub;
import io.traverse.hub.HubConfig;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * The hub of a {@link FloodRun}, in a process of its own so that its file descriptors and memory
 * are its own: prints {@code PORTS <link> <http>} once listening, {@code REFUSED <limit>=<n> ...}
 * when asked {@code REFUSED}, and closes at {@code QUIT} or end of input.
 *
 * <p>Arguments: {@code token deadlineMillis maxHandshakes maxHandshakesPerAddress maxHttpRequests}.
 */
public final class FloodHubProcess {
    private static final String[] LIMITS = {"handshakes", "handshakes-per-address", "http-requests"};

    private FloodHubProcess() {}

    public static void main(String[] args) throws Exception {
        Duration deadline = Duration.ofMillis(Long.parseLong(args[1]));
        HubConfig config = HubConfig.builder()
                .name("flooded")
                .bindAddress("127.0.0.1")
                .port(0)
                .httpPort(0)
                .token(args[0])
                .handshakeTimeout(deadline)
                .httpRequestTimeout(deadline)
                .maxHandshakes(Integer.parseInt(args[2]))
                .maxHandshakesPerAddress(Integer.parseInt(args[3]))
                .maxHttpRequests(Integer.parseInt(args[4]))
                .build();
        try (Hub hub = Hub.start(config)) {
            System.out.println("PORTS " + hub.linkAddress().getPort() + " "
                    + hub.httpAddress().orElseThrow().getPort());
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            for (String line = in.readLine(); line != null && !line.equals("QUIT"); line = in.readLine()) {
                if (line.equals("REFUSED")) {
                    StringBuilder out = new StringBuilder("REFUSED");
                    for (String limit : LIMITS) {
                        double n = hub.metrics()
                                .registry()
                                .get("traverse.hub.overload.refusals")
                                .tag("limit", limit)
                                .counter()
                                .count();
                        out.append(' ').append(limit).append('=').append((long) n);
                    }
                    System.out.println(out);
                }
            }
        }
    }
}
