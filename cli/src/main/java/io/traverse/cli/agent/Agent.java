package io.traverse.cli.agent;

import io.traverse.Traverse;
import io.traverse.TraverseConfig;
import io.traverse.cli.FailureLine;
import io.traverse.cli.pipe.ExposedService;
import io.traverse.cli.pipe.ForwardedService;
import io.traverse.cli.pipe.PipeCounters;
import io.traverse.cli.pipe.PipeService;
import io.traverse.cli.pipe.RunningPipe;
import java.io.Closeable;
import java.io.IOException;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The services of one agent file, all on one Traverse node (one listening port, one hub link).
 * {@link #reload()} reads the file again and starts, stops and restarts services to match it; a
 * stopped service closes its listener and lets its connections finish.
 */
public final class Agent implements Closeable {
    private final AgentFile started;
    private final Traverse node;
    private final AgentMetrics metrics;
    private final Map<String, Running> running = new LinkedHashMap<>();
    /** Stopped services whose connections have not all ended: reset when the agent closes. */
    private final List<RunningPipe<?>> draining = new ArrayList<>();

    private boolean closed;

    private record Running(AgentFile.Entry entry, RunningPipe<?> pipe) {}

    /** What a reload did, by service name; {@code error} is set (and nothing changed) when the file could not be used. */
    public record Reload(
            List<String> started,
            List<String> stopped,
            List<String> restarted,
            List<String> failed,
            boolean nodeSettingsChanged,
            String error) {}

    /** Looked up on first use: a logger made when picocli builds the command would fix the log level before {@code --log-level} applies. */
    private static Logger log() {
        return LoggerFactory.getLogger(Agent.class);
    }

    private Agent(AgentFile file, Traverse node, AgentMetrics metrics) {
        this.started = file;
        this.node = node;
        this.metrics = metrics;
    }

    /**
     * Starts the node and every service of {@code file}: the forwards' local ports first (a port
     * in use fails before the node starts), then the node, then the exposures. All or nothing.
     *
     * @param metrics where services count, or null for no counters
     * @throws AgentFileException naming the line of a service that could not start
     */
    public static Agent start(AgentFile file, AgentMetrics metrics) throws IOException {
        return start(file, file.nodeConfig(), metrics);
    }

    /** As {@link #start(AgentFile, AgentMetrics)}, on a node with {@code nodeConfig} (the file's settings and more). */
    public static Agent start(AgentFile file, TraverseConfig nodeConfig, AgentMetrics metrics) throws IOException {
        Map<AgentFile.Entry, ServerSocket> listeners = new LinkedHashMap<>();
        Agent agent;
        try {
            for (AgentFile.Entry entry : file.services()) {
                if (entry.service() instanceof ForwardedService forward) {
                    listeners.put(entry, bindOrExplain(file, entry, forward));
                }
            }
            agent = new Agent(file, Traverse.start(nodeConfig), metrics);
        } catch (IOException | RuntimeException e) {
            listeners.values().forEach(Agent::closeQuietly);
            throw e;
        }
        try {
            synchronized (agent) {
                for (AgentFile.Entry entry : file.services()) {
                    agent.running.put(entry.service().service(), agent.launch(file, entry, listeners.get(entry)));
                }
            }
        } catch (IOException | RuntimeException e) {
            listeners.values().forEach(Agent::closeQuietly);
            agent.close();
            throw e;
        }
        return agent;
    }

    public Traverse node() {
        return node;
    }

    /** The running services by name. */
    public synchronized Map<String, RunningPipe<?>> services() {
        Map<String, RunningPipe<?>> pipes = new LinkedHashMap<>();
        running.forEach((name, r) -> pipes.put(name, r.pipe()));
        return pipes;
    }

    /**
     * Reads the file again. Services added start, removed ones stop (their connections finish),
     * changed ones restart; a service that fails to start is logged with its line and the others
     * go on. Node settings cannot change under a running node: a change is logged as needing a
     * restart. A file that cannot be read or is invalid changes nothing and is logged.
     */
    public synchronized Reload reload() {
        AgentFile next;
        try {
            next = AgentFile.read(started.path());
        } catch (IOException | RuntimeException e) {
            String error = FailureLine.describe(e);
            log().error("Reload of {} failed, the running services stay as they were: {}", started.path(), error);
            return new Reload(List.of(), List.of(), List.of(), List.of(), false, error);
        }
        if (closed) {
            return new Reload(List.of(), List.of(), List.of(), List.of(), false, "the agent is closed");
        }
        Set<String> changedKeys = new TreeSet<>();
        Map<String, String> before = started.settingValues();
        Map<String, String> after = next.settingValues();
        for (String key : union(before.keySet(), after.keySet())) {
            if (!java.util.Objects.equals(before.get(key), after.get(key))) {
                changedKeys.add(key);
            }
        }
        if (!changedKeys.isEmpty()) {
            log().warn(
                            "Reload of {}: node settings changed ({}); they apply only when the agent restarts, the node keeps the ones "
                                    + "it started with",
                            started.path(),
                            String.join(", ", changedKeys));
        }
        Map<String, AgentFile.Entry> wanted = new LinkedHashMap<>();
        next.services().forEach(e -> wanted.put(e.service().service(), e));
        List<String> stopped = new ArrayList<>();
        List<String> restarted = new ArrayList<>();
        List<String> startedNow = new ArrayList<>();
        List<String> failed = new ArrayList<>();
        draining.removeIf(p -> p.openConnections() == 0);
        for (Map.Entry<String, Running> r : new ArrayList<>(running.entrySet())) {
            AgentFile.Entry want = wanted.get(r.getKey());
            if (want != null && want.service().equals(r.getValue().entry().service())) {
                continue;
            }
            stop(r.getKey(), r.getValue(), want == null ? "removed" : "changed");
            (want == null ? stopped : restarted).add(r.getKey());
            if (want == null && metrics != null) {
                metrics.remove(r.getKey());
            }
        }
        for (AgentFile.Entry entry : next.services()) {
            String name = entry.service().service();
            if (running.containsKey(name)) {
                continue;
            }
            try {
                ServerSocket listener =
                        entry.service() instanceof ForwardedService f ? bindOrExplain(next, entry, f) : null;
                running.put(name, launch(next, entry, listener));
                if (!restarted.contains(name)) {
                    startedNow.add(name);
                }
            } catch (IOException | RuntimeException e) {
                failed.add(name);
                restarted.remove(name);
                log().error("Reload of {}: {}", next.path(), FailureLine.describe(e));
            }
        }
        log().info(
                        "Reloaded {}: {} started, {} stopped, {} restarted, {} failed, {} running",
                        next.path(),
                        startedNow.size(),
                        stopped.size(),
                        restarted.size(),
                        failed.size(),
                        running.size());
        return new Reload(startedNow, stopped, restarted, failed, !changedKeys.isEmpty(), null);
    }

    private static Set<String> union(Set<String> a, Set<String> b) {
        Set<String> all = new TreeSet<>(a);
        all.addAll(b);
        return all;
    }

    private void stop(String name, Running r, String why) {
        r.pipe().stopAccepting();
        running.remove(name);
        int open = r.pipe().openConnections();
        if (open > 0) {
            draining.add(r.pipe());
        }
        log().info(
                        "Stopped {} {} ({}); {} open connection{} go{} on until {} end{}",
                        r.entry().service().kind(),
                        name,
                        why,
                        open,
                        open == 1 ? "" : "s",
                        open == 1 ? "es" : "",
                        open == 1 ? "it" : "they",
                        open == 1 ? "s" : "");
    }

    /** Starts one service; {@code listener} is a forward's bound port. On failure the listener is closed. */
    private Running launch(AgentFile file, AgentFile.Entry entry, ServerSocket listener) throws IOException {
        PipeService service = entry.service();
        PipeCounters counters = metrics == null ? PipeCounters.NONE : metrics.counters(service);
        RunningPipe<?> pipe;
        if (service instanceof ForwardedService forward) {
            pipe = forward.start(node, listener, counters, false);
            log().info(
                            "Started forward {}: forwarding {}:{} to {}",
                            service.service(),
                            forward.bind(),
                            listener.getLocalPort(),
                            forward.destination());
        } else {
            try {
                pipe = ((ExposedService) service).start(node, counters, false);
            } catch (IOException | RuntimeException e) {
                throw new AgentFileException(
                        file.path().toString(),
                        entry.line(),
                        service.kind() + " " + service.service() + ": " + FailureLine.describe(e));
            }
            log().info("Started expose {}: {}", service.service(), service.describe());
        }
        return new Running(entry, pipe);
    }

    private static ServerSocket bindOrExplain(AgentFile file, AgentFile.Entry entry, ForwardedService forward) {
        try {
            return forward.listen();
        } catch (IOException | RuntimeException e) {
            throw new AgentFileException(
                    file.path().toString(),
                    entry.line(),
                    "forward " + forward.service() + ": " + FailureLine.describe(e));
        }
    }

    private static void closeQuietly(Closeable c) {
        try {
            c.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    /** Closes every listener, resets every connection still piped (also those of stopped services), and closes the node. */
    @Override
    public synchronized void close() {
        closed = true;
        running.values().forEach(r -> closeQuietly(r.pipe()));
        draining.forEach(Agent::closeQuietly);
        running.clear();
        draining.clear();
        closeQuietly(node);
    }
}
