package io.traverse.testcontainers;

import com.github.dockerjava.api.exception.NotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Properties;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.images.ImagePullPolicy;
import org.testcontainers.utility.DockerImageName;

/**
 * A real Traverse hub in a container, for an application's integration tests:
 * <pre>{@code
 * try (TraverseHubContainer hub = new TraverseHubContainer()) {
 *     hub.start();
 *     Traverse node = Traverse.start(TraverseConfig.builder()
 *             .set("traverse.hubs", hub.getHubAddress()).token(hub.getToken()).build());
 * }
 * }</pre>
 * The image ({@code traverse/hub:<version>}) is loaded locally ({@code docker load -i
 * traverse-hub-image.tar}, built by the project's {@code container} module); it is never pulled.
 * The hub listens on {@link #LINK_PORT} for nodes and hubs and serves {@code /status},
 * {@code /metrics} and its dashboard ({@code /}) on {@link #HTTP_PORT}; both are published on
 * random host ports. The container
 * is ready when {@code /status} answers. The network token is random per container unless
 * {@link #withToken(String) set}.
 *
 * <p>Nodes reach the hub at {@link #getHubAddress()}, the published port. What the hub
 * <em>advertises</em> (its {@code --advertise} addresses: to other hubs, and to nodes as failover
 * candidates) is by default its addresses inside the container, which the Docker host and other
 * containers on its networks can reach; {@link #withAdvertisedAddresses(String...)} sets others.
 * A node's link does not depend on them: a node keeps the address it dialled.
 */
public class TraverseHubContainer extends GenericContainer<TraverseHubContainer> {
    /** The hub link port inside the container (nodes and hubs). */
    public static final int LINK_PORT = 17000;
    /** The HTTP port inside the container ({@code /status}, {@code /metrics}, the dashboard at {@code /}). */
    public static final int HTTP_PORT = 17080;
    /** The hub image of this version of the artifact. */
    public static final DockerImageName DEFAULT_IMAGE = DockerImageName.parse(imageOfThisVersion());

    private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(60);

    private String token = randomToken();
    private final List<String> advertised = new ArrayList<>();
    private String hubName;

    /** A hub from {@link #DEFAULT_IMAGE}. */
    public TraverseHubContainer() {
        this(DEFAULT_IMAGE);
    }

    /** A hub from another (locally loaded) image built the same way, e.g. {@code traverse/hub:0.2.0}. */
    public TraverseHubContainer(String image) {
        this(DockerImageName.parse(image));
    }

    public TraverseHubContainer(DockerImageName image) {
        super(image);
        withImagePullPolicy(new LoadedLocally());
        withExposedPorts(LINK_PORT, HTTP_PORT);
        waitingFor(Wait.forHttp("/status").forPort(HTTP_PORT).forStatusCode(200).withStartupTimeout(STARTUP_TIMEOUT));
    }

    /** The network token nodes and other hubs must present (default: random, see {@link #getToken()}). */
    public TraverseHubContainer withToken(String networkToken) {
        if (networkToken == null || networkToken.isBlank()) {
            throw new IllegalArgumentException(
                    "the network token must not be empty: a hub without one lets anyone join");
        }
        this.token = networkToken;
        return self();
    }

    /**
     * Addresses the hub advertises ({@code HOST:PORT}, as {@code traverse hub --advertise}); {@code "none"}
     * alone: it only dials out. Default: its addresses inside the container.
     */
    public TraverseHubContainer withAdvertisedAddresses(String... addresses) {
        advertised.clear();
        advertised.addAll(List.of(addresses));
        return self();
    }

    /** The hub's name (default: {@code <container hostname>:17000}); its id derives from it. */
    public TraverseHubContainer withHubName(String name) {
        this.hubName = name;
        return self();
    }

    @Override
    protected void configure() {
        // The token goes in the environment, not the command line, where the process list would show it.
        withEnv("TRAVERSE_TOKEN", token);
        List<String> command = new ArrayList<>(
                List.of("hub", "--port", String.valueOf(LINK_PORT), "--http-port", String.valueOf(HTTP_PORT)));
        if (!advertised.isEmpty()) {
            command.add("--advertise");
            command.add(String.join(",", advertised));
        }
        if (hubName != null) {
            command.add("--name");
            command.add(hubName);
        }
        setCommand(command.toArray(String[]::new));
    }

    /** The network token of this hub, for {@code traverse.token}. */
    public String getToken() {
        return token;
    }

    /** {@code host:port} nodes link to, for {@code traverse.hubs}; the container must be started. */
    public String getHubAddress() {
        return getHost() + ":" + getMappedPort(LINK_PORT);
    }

    /** {@link #getHubAddress()} as a socket address, for {@code TraverseConfig.Builder.hubs(..)}. */
    public InetSocketAddress getHubSocketAddress() {
        return new InetSocketAddress(getHost(), getMappedPort(LINK_PORT));
    }

    /** {@code http://host:port} of the hub's status and metrics endpoint; open it in a browser for the hub's dashboard. */
    public String getHttpUrl() {
        return "http://" + getHost() + ":" + getMappedPort(HTTP_PORT);
    }

    private static String randomToken() {
        byte[] bytes = new byte[16];
        new SecureRandom().nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }

    private static String imageOfThisVersion() {
        Properties properties = new Properties();
        try (InputStream in = TraverseHubContainer.class.getResourceAsStream("image.properties")) {
            if (in == null) {
                throw new IllegalStateException("image.properties is missing from traverse-testcontainers");
            }
            properties.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return properties.getProperty("image");
    }

    /**
     * Never pulls (the image is in no registry): an image that is not loaded fails at once with
     * what to do, instead of a pull that cannot succeed.
     */
    private static final class LoadedLocally implements ImagePullPolicy {
        @Override
        public boolean shouldPull(DockerImageName image) {
            try {
                DockerClientFactory.lazyClient()
                        .inspectImageCmd(image.asCanonicalNameString())
                        .exec();
                return false;
            } catch (NotFoundException e) {
                throw new IllegalStateException(
                        "the hub image " + image.asCanonicalNameString() + " is not loaded in this Docker engine:"
                                + " load it with 'docker load -i traverse-hub-image.tar' (made by 'mvn -Pdocker package -pl container -am -DskipTests'"
                                + " in the Traverse sources, see docs/operations.md \"The hub in a container\")",
                        e);
            }
        }
    }
}
