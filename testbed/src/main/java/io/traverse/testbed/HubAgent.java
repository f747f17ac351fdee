package io.traverse.testbed;

import io.traverse.hub.Hub;
import io.traverse.hub.HubConfig;
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A hub in its own JVM inside a testbed namespace ({@link #startOn}): prints {@code hub HOST:PORT}
 * once it listens, and runs until its standard input closes (or the testbed stops it).
 *
 * <pre>java io.traverse.testbed.HubAgent BIND-ADDRESS PORT TOKEN [NAME ADVERTISED PEERS]</pre>
 * ADVERTISED and PEERS are comma-separated {@code host:port} lists, {@code -} for none.
 */
public final class HubAgent {
    private HubAgent() {}

    /** Starts a hub agent on {@code host}'s address (in its namespace, on this class path); returns its HOST:PORT once it listens. */
    public static String startOn(Host host, int port, String token) throws Exception {
        return start(host, List.of(host.address().getHostAddress(), Integer.toString(port), token));
    }

    /**
     * Starts a hub agent on {@code host} listening on every address, named {@code name}, that
     * other hubs may dial at {@code advertised} (empty: it only dials out) and that dials
     * {@code peers}; returns its HOST:PORT on {@code host}'s own address once it listens.
     */
    public static String startOn(
            Host host, int port, String token, String name, List<String> advertised, List<String> peers)
            throws Exception {
        String listening = start(
                host,
                List.of("0.0.0.0", Integer.toString(port), token, name, listOrDash(advertised), listOrDash(peers)));
        return host.address().getHostAddress() + listening.substring(listening.lastIndexOf(':'));
    }

    /**
     * As {@link #startOn(Host, int, String, String, List, List)}, and peers in the networks of
     * {@code sshTunnels} (rules in {@code traverse.ssh.tunnels} form) are dialled through an sshd.
     */
    public static String startOn(
            Host host,
            int port,
            String token,
            String name,
            List<String> advertised,
            List<String> peers,
            List<String> sshTunnels)
            throws Exception {
        String listening = start(
                host,
                List.of(
                        "0.0.0.0",
                        Integer.toString(port),
                        token,
                        name,
                        listOrDash(advertised),
                        listOrDash(peers),
                        sshTunnels.isEmpty() ? "-" : String.join(";", sshTunnels)));
        return host.address().getHostAddress() + listening.substring(listening.lastIndexOf(':'));
    }

    private static String start(Host host, List<String> arguments) throws Exception {
        List<String> argv = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:+UseSerialGC",
                "-Xmx256m",
                "-XX:-UsePerfData",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                "-cp",
                System.getProperty("java.class.path"),
                HubAgent.class.getName()));
        argv.addAll(arguments);
        ProcessBuilder pb = new ProcessBuilder(argv);
        pb.redirectError(ProcessBuilder.Redirect.INHERIT);
        Process hub = host.namespace().start(pb);
        BufferedReader out = new BufferedReader(new InputStreamReader(hub.getInputStream(), StandardCharsets.UTF_8));
        String first;
        try {
            first = CompletableFuture.supplyAsync(() -> {
                        try {
                            return out.readLine();
                        } catch (IOException e) {
                            return null;
                        }
                    })
                    .get(30, TimeUnit.SECONDS);
        } catch (TimeoutException | ExecutionException e) {
            first = null;
        }
        if (first == null || !first.startsWith("hub ")) {
            NetworkNamespace.stop(hub);
            throw new TestbedException("the hub agent on " + host + " did not start: " + first);
        }
        return first.substring("hub ".length());
    }

    private static String listOrDash(List<String> list) {
        return list.isEmpty() ? "-" : String.join(",", list);
    }

    private static List<String> dashOrList(String text) {
        return text.equals("-") ? List.of() : Arrays.asList(text.split(","));
    }

    public static void main(String[] args) throws IOException {
        HubConfig.Builder config = HubConfig.builder()
                .bindAddress(args[0])
                .port(Integer.parseInt(args[1]))
                .token(args[2])
                .name(args.length > 3 ? args[3] : "testbed-hub")
                // A new key per run: the testbed's hubs share one file system, and keep nothing.
                .ephemeralKey()
                .httpPort(-1);
        if (args.length > 5) {
            config.advertisedAddresses(dashOrList(args[4])).peers(dashOrList(args[5]));
        }
        if (args.length > 6 && !args[6].equals("-")) {
            for (String rule : args[6].split(";")) {
                config.sshTunnel(rule.trim());
            }
        }
        // Standard output is the channel to the test that started us (as for NodeAgent): the one line it waits for.
        PrintStream channel = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        try (Hub hub = Hub.start(config.build())) {
            channel.println("hub " + args[0] + ":" + hub.linkAddress().getPort());
            while (System.in.read() >= 0) {
                // until the test closes our input (or the testbed stops us)
            }
        }
    }
}
