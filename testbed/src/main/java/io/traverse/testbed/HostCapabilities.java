package io.traverse.testbed;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What this machine offers the testbed: root (namespaces, veth and netfilter need it) and the
 * tools it drives, {@code ip} (Debian package iproute2) and {@code nft} (package nftables),
 * resolved to absolute paths so that {@code ip netns exec} finds them whatever the PATH.
 *
 * <p>Tests use it to tell "not root: skip" from "root but a tool is missing: fail".
 */
public final class HostCapabilities {
    /** Tool name and the Debian package that provides it. */
    private static final Map<String, String> REQUIRED_TOOLS = Map.of("ip", "iproute2", "nft", "nftables");

    private static final List<String> FALLBACK_DIRECTORIES = List.of("/usr/sbin", "/sbin", "/usr/bin", "/bin");

    private final boolean root;
    private final Map<String, Path> tools;
    private final List<String> missing;

    private HostCapabilities(boolean root, Map<String, Path> tools, List<String> missing) {
        this.root = root;
        this.tools = Map.copyOf(tools);
        this.missing = List.copyOf(missing);
    }

    /** Looks at this process and machine. */
    public static HostCapabilities probe() {
        Map<String, Path> found = new LinkedHashMap<>();
        List<String> missing = new ArrayList<>();
        for (String tool : List.of("ip", "nft")) {
            Optional<Path> path = locate(tool);
            if (path.isPresent()) {
                found.put(tool, path.get());
            } else {
                missing.add(tool + " (Debian package " + REQUIRED_TOOLS.get(tool) + ")");
            }
        }
        return new HostCapabilities(isRootUser(), found, missing);
    }

    /** True if this process runs as user id 0. */
    public boolean isRoot() {
        return root;
    }

    /** Required tools that were not found, each with the package that provides it; empty when all are there. */
    public List<String> missingTools() {
        return missing;
    }

    /** The Debian packages the testbed needs. */
    public static List<String> requiredPackages() {
        return List.of("iproute2", "nftables");
    }

    /** Why the testbed cannot run here, or empty if it can. */
    public Optional<String> problem() {
        if (!root) {
            return Optional.of("the network-namespace testbed needs root (user id 0); this process runs as user "
                    + System.getProperty("user.name"));
        }
        if (!missing.isEmpty()) {
            return Optional.of(
                    "the network-namespace testbed needs tools that are not installed: " + String.join(", ", missing));
        }
        return Optional.empty();
    }

    /** The absolute path of a required tool. */
    public String tool(String name) {
        Path path = tools.get(name);
        if (path == null) {
            throw new TestbedException("tool '" + name + "' is not available"
                    + problem().map(p -> ": " + p).orElse(""));
        }
        return path.toString();
    }

    static Optional<Path> locate(String tool) {
        Set<String> directories = new LinkedHashSet<>();
        String pathVariable = System.getenv("PATH");
        if (pathVariable != null) {
            for (String dir : pathVariable.split(":")) {
                if (!dir.isEmpty()) {
                    directories.add(dir);
                }
            }
        }
        directories.addAll(FALLBACK_DIRECTORIES);
        for (String dir : directories) {
            Path candidate = Path.of(dir, tool);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return Optional.of(candidate.toAbsolutePath());
            }
        }
        return Optional.empty();
    }

    /** Reads the real user id from {@code /proc/self/status} (Linux). */
    private static boolean isRootUser() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Uid:")) {
                    String[] fields = line.substring(4).trim().split("\\s+");
                    return fields.length > 1 && fields[1].equals("0"); // effective uid
                }
            }
        } catch (IOException | RuntimeException e) {
            // Not Linux, or /proc is not mounted: no namespaces either.
        }
        return false;
    }
}
