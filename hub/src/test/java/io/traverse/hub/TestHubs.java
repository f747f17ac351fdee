package io.traverse.hub;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * Starts in-process hubs on 127.0.0.1 with ephemeral ports and fast timings, and closes them all
 * at the end of a test (also after a failure). A hub on a fixed port keeps its key in a state
 * directory of this instance's, deleted at the end: never in the user's, where hubs of other test
 * runs on the machine hold the lock of the same name's key.
 */
final class TestHubs implements AutoCloseable {
    static final String TOKEN = "test-token";
    static final Duration KEEPALIVE =
            Duration.ofMillis(300); // silent links close after 750 ms: room for a loaded CI machine
    /**
     * Room for a TLS handshake and admission: the first TLS handshake of a test JVM takes close to
     * two seconds on a quiet two-core machine.
     */
    static final Duration HANDSHAKE_TIMEOUT = Duration.ofSeconds(4);

    private final List<Hub> hubs = new ArrayList<>();
    private Path stateDirectory;

    /** A hub nobody is told about: it only dials out (advertises nothing). */
    Hub dialOnly(String name, Hub... peers) throws IOException {
        return start(name, b -> b.advertisedAddresses(List.of()), peers);
    }

    /** A hub that advertises its loopback address, so that hubs that learn of it dial it. */
    Hub advertised(String name, Hub... peers) throws IOException {
        return start(name, b -> {}, peers);
    }

    Hub start(String name, Consumer<HubConfig.Builder> customise, Hub... peers) throws IOException {
        return start(name, 0, customise, peers);
    }

    Hub start(String name, int port, Consumer<HubConfig.Builder> customise, Hub... peers) throws IOException {
        HubConfig.Builder builder =
                fast(HubConfig.builder().name(name).port(port)).stateDirectory(stateDirectory());
        for (Hub peer : peers) {
            builder.peer("127.0.0.1:" + peer.linkAddress().getPort());
        }
        customise.accept(builder);
        Hub hub = Hub.start(builder.build());
        hubs.add(hub);
        return hub;
    }

    static HubConfig.Builder fast(HubConfig.Builder builder) {
        return builder.bindAddress("127.0.0.1")
                .token(TOKEN)
                .httpPort(-1)
                .keepaliveInterval(KEEPALIVE)
                .handshakeTimeout(HANDSHAKE_TIMEOUT)
                .gossipRefreshInterval(Duration.ofMillis(300))
                .hubExpiry(Duration.ofMillis(1500))
                .redial(Duration.ofMillis(50), Duration.ofMillis(400))
                .ioThreads(1);
    }

    private Path stateDirectory() throws IOException {
        if (stateDirectory == null) {
            stateDirectory = Files.createTempDirectory("traverse-test-hubs-");
        }
        return stateDirectory;
    }

    @Override
    public void close() {
        for (Hub hub : hubs) {
            hub.close();
        }
        if (stateDirectory != null) {
            try (Stream<Path> files = Files.walk(stateDirectory)) {
                for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(file);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            stateDirectory = null;
        }
    }
}
