package io.traverse.testbed;

import io.traverse.TraverseConfig;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * How to start a {@link NodeAgent}: the node's {@code traverse.*} settings (passed as system
 * properties, so the agent configures itself like any application), the virtual port of its
 * verification service, and JVM options. Each {@code traverse.*} value is checked here, so a typo
 * fails before a JVM starts.
 */
public final class NodeSettings {
    private static final Pattern LOG_LEVEL = Pattern.compile("trace|debug|info|warn|error|off");

    private final Map<String, String> traverse = new LinkedHashMap<>();
    private final List<String> jvmOptions =
            new ArrayList<>(List.of("-XX:+UseSerialGC", "-Xmx256m", "-XX:-UsePerfData"));
    private int servicePort = 7;
    private String serviceName;
    private String rmiName;
    private int echoPort = 8;
    private int plainServicePort = -1;
    private int plainEchoPort = -1;
    private String logLevel = "info";
    private Duration startTimeout = Duration.ofSeconds(30);
    private String classPath = System.getProperty("java.class.path");

    private NodeSettings() {}

    /** Defaults: no {@code traverse.*} setting, service on virtual port 7. */
    public static NodeSettings create() {
        return new NodeSettings();
    }

    /** A node linked to {@code hub} under the network token {@code token}, with discovery off (tests name their hubs). */
    public static NodeSettings linkedTo(String hub, String token) {
        return create().set("traverse.hubs", hub).set("traverse.token", token).set("traverse.discovery", "false");
    }

    /** Any {@code traverse.*} key, e.g. {@code set("traverse.connect.stagger", "50ms")}. */
    public NodeSettings set(String key, String value) {
        TraverseConfig.builder().set(key, value, "NodeSettings"); // validates; throws naming the key, or an unknown one
        traverse.put(key, value);
        return this;
    }

    /** {@code traverse.bind}: listen on (and advertise) this address only. */
    public NodeSettings bind(InetAddress address) {
        return set("traverse.bind", address.getHostAddress());
    }

    /** {@code traverse.port.range}, e.g. {@code 7000} for a fixed listening port that a NAT can forward. */
    public NodeSettings portRange(String range) {
        return set("traverse.port.range", range);
    }

    /** {@code traverse.external}: an address on a NAT that forwards to this node. */
    public NodeSettings external(InetAddress address, int port) {
        return set("traverse.external", address.getHostAddress() + ":" + port);
    }

    /** {@code traverse.firewall}: the node's simulated firewall, e.g. {@code allow:10.0.0.0/24,deny:all}. */
    public NodeSettings firewall(String rules) {
        return set("traverse.firewall", rules);
    }

    /** The virtual port of the verification service (default 7). */
    public NodeSettings servicePort(int port) {
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("virtual port " + port + " is not within 1-65535");
        }
        servicePort = port;
        return this;
    }

    /** Registers the verification service under {@code name} at the hub network (default: no name). */
    public NodeSettings serviceName(String name) {
        serviceName = name;
        return this;
    }

    /**
     * Also exports {@link RmiChecksums}' object in an RMI registry on this node, under {@code name}
     * at the hub network (default: no RMI).
     */
    public NodeSettings rmiName(String name) {
        rmiName = name;
        return this;
    }

    /** The virtual port of the one-byte echo for round trips (default 8). */
    public NodeSettings echoPort(int port) {
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("virtual port " + port + " is not within 1-65535");
        }
        echoPort = port;
        return this;
    }

    /**
     * Also serve the verification service and the echo on plain TCP ports of every address
     * (default: not), so plain sockets can be compared with Traverse on the same hosts.
     */
    public NodeSettings plainPorts(int servicePort, int echoPort) {
        for (int port : new int[] {servicePort, echoPort}) {
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException("TCP port " + port + " is not within 1-65535");
            }
        }
        if (servicePort == echoPort) {
            throw new IllegalArgumentException(
                    "the plain service and echo need two ports, not " + servicePort + " twice");
        }
        plainServicePort = servicePort;
        plainEchoPort = echoPort;
        return this;
    }

    /** An extra JVM option, e.g. {@code -Xmx512m}. */
    public NodeSettings jvmOption(String option) {
        if (!option.startsWith("-")) {
            throw new IllegalArgumentException("JVM option '" + option + "' must start with '-'");
        }
        jvmOptions.add(option);
        return this;
    }

    /** The agent's SLF4J simple-logger level (default info); its log goes to stderr. */
    public NodeSettings logLevel(String level) {
        if (!LOG_LEVEL.matcher(level).matches()) {
            throw new IllegalArgumentException(
                    "log level '" + level + "' is not one of trace, debug, info, warn, error, off");
        }
        logLevel = level;
        return this;
    }

    /** How long the agent may take to start and print its address (default 30 s). */
    public NodeSettings startTimeout(Duration timeout) {
        startTimeout = timeout;
        return this;
    }

    /** The class path of the agent JVM (default: this JVM's); it must hold the testbed, core and the modules wanted. */
    public NodeSettings classPath(String path) {
        classPath = path;
        return this;
    }

    Map<String, String> traverseSettings() {
        return new LinkedHashMap<>(traverse);
    }

    List<String> jvmOptions() {
        return List.copyOf(jvmOptions);
    }

    int servicePort() {
        return servicePort;
    }

    /** The name the verification service registers, or null. */
    String serviceName() {
        return serviceName;
    }

    /** The name RMI's registry and object are exported under, or null. */
    String rmiName() {
        return rmiName;
    }

    int echoPort() {
        return echoPort;
    }

    /** The plain verification port, or -1 for none. */
    int plainServicePort() {
        return plainServicePort;
    }

    /** The plain echo port, or -1 for none. */
    int plainEchoPort() {
        return plainEchoPort;
    }

    String logLevel() {
        return logLevel;
    }

    Duration startTimeout() {
        return startTimeout;
    }

    String classPath() {
        return classPath;
    }

    @Override
    public String toString() {
        return "NodeSettings" + traverse + " service port " + servicePort;
    }
}
