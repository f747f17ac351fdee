package io.traverse.testbed;

import io.traverse.hub.Hub;
import io.traverse.hub.HubConfig;
import java.io.IOException;

/**
 * A hub in its own JVM, started by {@link ReverseThroughNatTest} inside a namespace: prints
 * {@code hub HOST:PORT} once it listens, and runs until its standard input closes.
 *
 * <pre>java io.traverse.testbed.HubAgent BIND-ADDRESS PORT TOKEN</pre>
 */
public final class HubAgent {
    private HubAgent() {
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
