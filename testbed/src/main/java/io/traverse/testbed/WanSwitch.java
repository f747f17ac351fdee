package io.traverse.testbed;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The internet core of a testbed with {@link WanLatency}: a learning Ethernet switch in user space
 * ({@code wan-switch.c}, built with gcc at first use) whose ports are TAP devices in the sites'
 * namespaces, holding each frame for the one-way delay between the places of its in- and
 * out-port. This kernel has no netem, so the delay cannot be a qdisc. The process runs in the
 * host's namespace but creates its devices only inside testbed namespaces, and ends when its
 * standard input closes, so it cannot outlive the JVM that started it.
 */
final class WanSwitch implements AutoCloseable {
    private static final String SOURCE = "wan-switch.c";
    private static final Duration COMPILE_TIMEOUT = Duration.ofSeconds(60);

    private final Process process;
    private final Writer commands;
    private final BufferedReader answers;
    private final WanLatency latency;
    private final Map<String, Integer> places = new LinkedHashMap<>();

    private WanSwitch(Process process, WanLatency latency) {
        this.process = process;
        this.latency = latency;
        this.commands = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.US_ASCII);
        this.answers = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.US_ASCII));
    }

    /** Builds the switch if needed and starts it. */
    static WanSwitch start(WanLatency latency) {
        Path binary = binary();
        Process process;
        try {
            process = new ProcessBuilder(binary.toString())
                    .redirectError(ProcessBuilder.Redirect.INHERIT)
                    .start();
        } catch (IOException e) {
            throw new TestbedException("cannot start the WAN switch " + binary + ": " + e.getMessage(), e);
        }
        WanSwitch wan = new WanSwitch(process, latency);
        wan.expectOk("start");
        return wan;
    }

    /**
     * Makes a port: a TAP device {@code ifName} inside {@code ns}, at the place
     * {@link WanLatency#placeOf} gives its label. The device is down and has no address yet.
     */
    synchronized void port(NetworkNamespace ns, String ifName) {
        String place = latency.placeOf(ns.label());
        Integer id = places.get(place);
        if (id == null) {
            id = places.size();
            if (id > 255) {
                throw new TestbedException("the WAN switch has room for 256 places");
            }
            places.put(place, id);
            for (Map.Entry<String, Integer> other : places.entrySet()) {
                long micros = latency.oneWay(place, other.getKey()).toNanos() / 1000;
                command("delay " + id + " " + other.getValue() + " " + micros);
                int hops = latency.hops(place, other.getKey());
                if (hops > 0) {
                    command("hops " + id + " " + other.getValue() + " " + hops);
                }
            }
        }
        command("port /run/netns/" + ns.name() + " " + ifName + " " + id);
    }

    /** Frames forwarded, dropped and queued so far, as the switch counts them. */
    synchronized String stats() {
        return command("stats");
    }

    private String command(String line) {
        try {
            commands.write(line + "\n");
            commands.flush();
        } catch (IOException e) {
            throw new TestbedException("the WAN switch is gone (" + line + "): " + e.getMessage(), e);
        }
        return expectOk(line);
    }

    private String expectOk(String what) {
        String answer;
        try {
            answer = answers.readLine();
        } catch (IOException e) {
            throw new TestbedException("the WAN switch did not answer " + what + ": " + e.getMessage(), e);
        }
        if (answer == null || !answer.startsWith("ok")) {
            throw new TestbedException("the WAN switch refused " + what + ": " + answer);
        }
        return answer.substring(2).trim();
    }

    @Override
    public void close() throws InterruptedException {
        try {
            commands.close(); // end of input ends it
        } catch (IOException e) {
            // already gone
        }
        if (!process.waitFor(2, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(2, TimeUnit.SECONDS);
        }
    }

    /** The switch's executable, compiled once per version of its source into the temporary directory. */
    private static synchronized Path binary() {
        byte[] source;
        try (InputStream in = WanSwitch.class.getResourceAsStream(SOURCE)) {
            if (in == null) {
                throw new TestbedException(SOURCE + " is missing from the testbed's resources");
            }
            source = in.readAllBytes();
        } catch (IOException e) {
            throw new TestbedException("cannot read " + SOURCE + ": " + e.getMessage(), e);
        }
        Path dir = Path.of(System.getProperty("java.io.tmpdir"), "traverse-testbed");
        Path binary = dir.resolve("wan-switch-" + shortHash(source));
        if (Files.isExecutable(binary)) {
            return binary;
        }
        Path gcc = HostCapabilities.locate("gcc")
                .orElseThrow(() -> new TestbedException(
                        "WAN latency needs gcc to build its switch (Debian packages gcc and libc6-dev)"));
        try {
            Files.createDirectories(dir);
            Path src = Files.createTempFile(dir, "wan-switch", ".c");
            Path out = Files.createTempFile(dir, "wan-switch", ".bin");
            try {
                Files.write(src, source);
                HostCommand.run(
                        List.of(gcc.toString(), "-O2", "-o", out.toString(), src.toString()), null, COMPILE_TIMEOUT);
                Files.move(out, binary, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } finally {
                Files.deleteIfExists(src);
                Files.deleteIfExists(out);
            }
        } catch (IOException e) {
            throw new TestbedException("cannot build the WAN switch in " + dir + ": " + e.getMessage(), e);
        }
        return binary;
    }

    private static String shortHash(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes), 0, 6);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
