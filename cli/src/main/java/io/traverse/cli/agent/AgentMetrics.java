package io.traverse.cli.agent;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.traverse.cli.pipe.PipeCounters;
import io.traverse.cli.pipe.PipeService;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The agent's counters per service, tagged {@code service} and {@code kind}, in Prometheus text
 * format: connections accepted, failed (the other side unreachable) and open, and bytes piped
 * each way. A service that a reload restarts keeps its counters (Prometheus counters only grow);
 * one a reload removes loses them.
 */
public final class AgentMetrics {
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final Map<String, ServiceMeters> byService = new ConcurrentHashMap<>();

    /** The counters of {@code service}: the ones it had if it ran before as the same kind, else new ones. */
    PipeCounters counters(PipeService service) {
        return byService.compute(service.service(), (name, existing) -> {
            if (existing != null && existing.kind.equals(service.kind())) {
                return existing;
            }
            if (existing != null) {
                existing.remove(registry);
            }
            return new ServiceMeters(registry, name, service.kind());
        });
    }

    /** Forgets a service that a reload removed. */
    void remove(String service) {
        ServiceMeters meters = byService.remove(service);
        if (meters != null) {
            meters.remove(registry);
        }
    }

    /** The Prometheus text exposition of every service's counters. */
    public String scrape() {
        return registry.scrape();
    }

    private static final class ServiceMeters implements PipeCounters {
        final String kind;
        private final AtomicInteger open = new AtomicInteger();
        private final Counter accepted;
        private final Counter failed;
        private final Counter fromClient;
        private final Counter toClient;
        private final Gauge openGauge;

        ServiceMeters(PrometheusMeterRegistry registry, String service, String kind) {
            this.kind = kind;
            Tags tags = Tags.of("service", service, "kind", kind);
            accepted = Counter.builder("traverse.agent.connections.accepted")
                    .tags(tags)
                    .description("Connections a service accepted on its listener")
                    .register(registry);
            failed = Counter.builder("traverse.agent.connections.failed")
                    .tags(tags)
                    .description("Accepted connections reset because the other side could not be reached")
                    .register(registry);
            openGauge = Gauge.builder("traverse.agent.connections.open", open, AtomicInteger::get)
                    .tags(tags)
                    .description("Connections a service pipes now")
                    .register(registry);
            fromClient = Counter.builder("traverse.agent.piped")
                    .baseUnit("bytes")
                    .tags(tags)
                    .tag("direction", "from_client")
                    .description("Bytes piped, from the client (who connected to the listener) or back to it")
                    .register(registry);
            toClient = Counter.builder("traverse.agent.piped")
                    .baseUnit("bytes")
                    .tags(tags)
                    .tag("direction", "to_client")
                    .description("Bytes piped, from the client (who connected to the listener) or back to it")
                    .register(registry);
        }

        void remove(PrometheusMeterRegistry registry) {
            for (Meter meter : List.<Meter>of(accepted, failed, openGauge, fromClient, toClient)) {
                registry.remove(meter);
            }
        }

        @Override
        public void accepted() {
            accepted.increment();
        }

        @Override
        public void failed() {
            failed.increment();
        }

        @Override
        public void opened() {
            open.incrementAndGet();
        }

        @Override
        public void closed() {
            open.decrementAndGet();
        }

        @Override
        public void fromClient(long bytes) {
            fromClient.increment(bytes);
        }

        @Override
        public void toClient(long bytes) {
            toClient.increment(bytes);
        }
    }
}
