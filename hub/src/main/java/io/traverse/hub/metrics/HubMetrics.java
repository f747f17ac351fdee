package io.traverse.hub.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntSupplier;

/**
 * The hub's Prometheus metrics: how many nodes, links, hubs and names it has (gauges read when
 * scraped), and how many messages and bytes it forwarded and errors it met (counters, by kind).
 * Counting is lock-free and allocation-free after a kind was first seen, so event loops may call
 * it on every frame.
 */
public final class HubMetrics {
    private static final String PREFIX = "traverse.hub.";

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final Map<String, Counter> forwardedMessages = new ConcurrentHashMap<>();
    private final Map<String, Counter> forwardedBytes = new ConcurrentHashMap<>();
    private final Map<String, Counter> errors = new ConcurrentHashMap<>();
    private final Map<String, Counter> rejectedLinks = new ConcurrentHashMap<>();

    /** Registers the gauges; the suppliers are called at scrape time, from the HTTP thread. */
    public HubMetrics(IntSupplier connectedNodes, IntSupplier hubLinks, IntSupplier knownHubs, IntSupplier reachableHubs,
            IntSupplier names) {
        gauge("nodes", "nodes connected to this hub", connectedNodes);
        gauge("links", "live authenticated links to other hubs", hubLinks);
        gauge("known.hubs", "hubs known through gossip, this one included", knownHubs);
        gauge("reachable.hubs", "hubs this hub has a route to, this one included", reachableHubs);
        gauge("names", "names registered in the whole hub network", names);
    }

    private void gauge(String name, String description, IntSupplier value) {
        Gauge.builder(PREFIX + name, value, IntSupplier::getAsInt).description(description).register(registry);
    }

    /** A message of the given kind (e.g. {@code side}, {@code gossip}) passed on to a link. */
    public void forwarded(String kind, int bytes) {
        forwardedMessages.computeIfAbsent(kind, k -> Counter.builder(PREFIX + "messages.forwarded")
                .description("messages passed on to another link").tag("kind", k).register(registry)).increment();
        forwardedBytes.computeIfAbsent(kind, k -> Counter.builder(PREFIX + "bytes.forwarded").baseUnit("bytes")
                .description("bytes passed on to another link").tag("kind", k).register(registry)).increment(bytes);
    }

    /** Something went wrong; {@code kind} is short and from a small fixed set (e.g. {@code no_route}). */
    public void error(String kind) {
        errors.computeIfAbsent(kind, k -> Counter.builder(PREFIX + "errors").description("errors by kind")
                .tag("kind", k).register(registry)).increment();
    }

    /** A link was refused during its handshake; {@code reason} is a REJECT code such as {@code auth}. */
    public void linkRejected(String reason) {
        rejectedLinks.computeIfAbsent(reason, r -> Counter.builder(PREFIX + "links.rejected")
                .description("links refused during the handshake, by reason").tag("reason", r).register(registry))
                .increment();
    }

    /** The Prometheus text exposition of every meter. */
    public String scrape() {
        return registry.scrape();
    }

    /** The content type {@link #scrape()} is in. */
    public static String contentType() {
        return "text/plain; version=0.0.4; charset=utf-8";
    }

    public PrometheusMeterRegistry registry() {
        return registry;
    }
}
