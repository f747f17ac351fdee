package io.traverse.cli.agent;

import io.traverse.TraverseConfig;
import io.traverse.cli.TokenFile;
import io.traverse.cli.pipe.ExposedService;
import io.traverse.cli.pipe.ForwardedService;
import io.traverse.cli.pipe.PipeService;
import io.traverse.config.ConfigKey;
import io.traverse.config.ConfigSources;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * An agent's file, read and validated at once: the node settings (any {@code traverse.*} key and
 * {@code token-file}) and the services, one a line. The format (docs/operations.md, "One agent,
 * many services"):
 *
 * <pre>
 * # node settings: KEY = VALUE
 * traverse.hubs = hub-a.example.org:17000,hub-b.example.org:17000
 * token-file = /etc/traverse/token
 *
 * # services
 * expose  SERVICE LOCAL-PORT [name=NAME] [port=PORT]
 * forward SERVICE LOCAL-PORT DESTINATION:PORT [bind=ADDRESS]
 * </pre>
 *
 * Any mistake fails the whole file with {@code FILE:LINE: what}: an unknown key or option, a bad
 * value or port, a service name or a local port used twice.
 *
 * @param settings the node settings by key, {@code token-file} already read into {@code traverse.token}
 */
public record AgentFile(Path path, Map<String, Setting> settings, List<Entry> services) {
    static final String TOKEN_FILE = "token-file";
    private static final Pattern SERVICE_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,62}");

    /** A node setting and the line that gave it. */
    public record Setting(String value, int line) {}

    /** A service and the line that gave it. */
    public record Entry(PipeService service, int line) {}

    public AgentFile {
        settings = Map.copyOf(settings);
        services = List.copyOf(services);
    }

    /**
     * Reads and validates {@code path}.
     *
     * @throws AgentFileException naming the line at fault
     * @throws IOException if the file (or its token file) cannot be read
     */
    public static AgentFile read(Path path) throws IOException {
        return parse(path, Files.readAllLines(path, StandardCharsets.UTF_8));
    }

    static AgentFile parse(Path path, List<String> lines) throws IOException {
        String file = path.toString();
        Map<String, Setting> settings = new LinkedHashMap<>();
        List<Entry> services = new ArrayList<>();
        Map<String, Integer> serviceLines = new HashMap<>();
        Map<String, Integer> listenLines = new HashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            int number = i + 1;
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String[] words = line.split("\\s+");
            if (words[0].equals("expose") || words[0].equals("forward")) {
                PipeService service;
                try {
                    service = words[0].equals("expose") ? expose(words) : forward(words);
                } catch (IllegalArgumentException e) {
                    throw new AgentFileException(
                            file, number, words[0] + (words.length > 1 ? " " + words[1] : "") + ": " + e.getMessage());
                }
                Integer before = serviceLines.putIfAbsent(service.service(), number);
                if (before != null) {
                    throw new AgentFileException(
                            file,
                            number,
                            "service name '" + service.service() + "' is used on line " + before + " already");
                }
                String listens = listens(service);
                Integer listenedBefore = listens == null ? null : listenLines.putIfAbsent(listens, number);
                if (listenedBefore != null) {
                    throw new AgentFileException(
                            file,
                            number,
                            service.kind() + " " + service.service() + ": " + listens + " is used on line "
                                    + listenedBefore + " already");
                }
                services.add(new Entry(service, number));
                continue;
            }
            int equals = line.indexOf('=');
            if (equals < 0) {
                throw new AgentFileException(
                        file, number, "'" + words[0] + "' is neither KEY = VALUE nor an expose or forward line");
            }
            String key = line.substring(0, equals).strip();
            String value = line.substring(equals + 1).strip();
            setting(path, number, key, value, settings);
        }
        return new AgentFile(path, settings, services);
    }

    private static void setting(Path path, int number, String key, String value, Map<String, Setting> settings)
            throws IOException {
        String file = path.toString();
        if (key.equals(TOKEN_FILE)) {
            Path tokenFile = path.toAbsolutePath().getParent().resolve(value);
            try {
                value = TokenFile.read(tokenFile);
            } catch (IOException e) {
                throw new AgentFileException(file, number, "token-file " + tokenFile + " cannot be read (" + e + ")");
            }
            key = ConfigKey.TOKEN.key();
        }
        String named = key;
        if (!ConfigSources.knows(named)) {
            throw new AgentFileException(
                    file,
                    number,
                    "unknown key '" + named
                            + "' (expected token-file or a traverse.* key from docs/operations.md, \"Configuration keys\")");
        }
        try {
            TraverseConfig.builder().set(named, value, "line " + number); // validates the value now
        } catch (IllegalArgumentException e) {
            throw new AgentFileException(file, number, e.getMessage());
        }
        Setting before = settings.put(named, new Setting(value, number));
        if (before != null) {
            throw new AgentFileException(file, number, named + " is set on line " + before.line() + " already");
        }
    }

    private static ExposedService expose(String[] words) {
        // expose SERVICE LOCAL-PORT [name=NAME] [port=PORT]
        if (words.length < 3) {
            throw new IllegalArgumentException("expected 'expose SERVICE LOCAL-PORT [name=NAME] [port=PORT]'");
        }
        String service = serviceName(words[1]);
        int localPort = port(words[2], "LOCAL-PORT", 1);
        Map<String, String> options = options(words, 3, "name", "port");
        String name = options.getOrDefault("name", service);
        int virtualPort = options.containsKey("port") ? port(options.get("port"), "port", 1) : localPort;
        return new ExposedService(service, localPort, name, virtualPort);
    }

    private static ForwardedService forward(String[] words) {
        // forward SERVICE LOCAL-PORT DESTINATION:PORT [bind=ADDRESS]
        if (words.length < 4) {
            throw new IllegalArgumentException("expected 'forward SERVICE LOCAL-PORT DESTINATION:PORT [bind=ADDRESS]'");
        }
        String service = serviceName(words[1]);
        int localPort = port(words[2], "LOCAL-PORT", 0);
        Map<String, String> options = options(words, 4, "bind");
        return ForwardedService.of(service, localPort, options.getOrDefault("bind", "127.0.0.1"), words[3]);
    }

    private static String serviceName(String name) {
        if (!SERVICE_NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(
                    "service name must be 1-63 letters, digits, '.', '_' or '-', starting with a letter or digit");
        }
        return name;
    }

    private static int port(String text, String what, int lowest) {
        int port;
        try {
            port = Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(what + " '" + text + "' is not a number");
        }
        if (port < lowest || port > 65535) {
            throw new IllegalArgumentException(what + " " + port + " is not within " + lowest + "-65535");
        }
        return port;
    }

    private static Map<String, String> options(String[] words, int from, String... known) {
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = from; i < words.length; i++) {
            int equals = words[i].indexOf('=');
            String option = equals < 0 ? words[i] : words[i].substring(0, equals);
            if (equals <= 0 || !List.of(known).contains(option)) {
                throw new IllegalArgumentException(
                        "unknown option '" + words[i] + "' (expected " + String.join("=…, ", known) + "=…)");
            }
            if (options.put(option, words[i].substring(equals + 1)) != null) {
                throw new IllegalArgumentException(option + "= is given twice");
            }
        }
        return options;
    }

    /**
     * What a service listens on that no other service of the file may: a forward's local address
     * and port, an exposure's virtual port (the agent's exposures share one node, and a name stands
     * for the node like a host name, so two exposures differ by virtual port).
     */
    private static String listens(PipeService service) {
        if (service instanceof ForwardedService f) {
            return f.localPort() == 0 ? null : "local port " + f.bind() + ":" + f.localPort();
        }
        ExposedService e = (ExposedService) service;
        return "virtual port " + e.virtualPort();
    }

    /** The node's configuration: its usual sources (system properties, environment, traverse.properties), then this file's settings on top. */
    public TraverseConfig nodeConfig() {
        return nodeConfig(null, null);
    }

    /**
     * As {@link #nodeConfig()}, with a network token given outside the file (the command's
     * {@code --token-file}: a systemd credential the service's user can read where it cannot read
     * the token's own file) under the file's settings, so the file's {@code token-file} still wins.
     *
     * @param token the token, or null for none
     * @param origin where the token came from, for error messages
     */
    public TraverseConfig nodeConfig(String token, String origin) {
        TraverseConfig.Builder config =
                TraverseConfig.builderFrom(ConfigSources.collect()).jdkProxyProperties(System.getProperties());
        if (token != null) {
            config.set(ConfigKey.TOKEN, token, origin);
        }
        settings.forEach((key, setting) -> config.set(key, setting.value(), path + " line " + setting.line()));
        return config.build();
    }

    /** The node settings as key and value, without line numbers, to tell whether a reload changed them. */
    Map<String, String> settingValues() {
        Map<String, String> values = new HashMap<>();
        settings.forEach((key, setting) -> values.put(key, setting.value()));
        return values;
    }
}
