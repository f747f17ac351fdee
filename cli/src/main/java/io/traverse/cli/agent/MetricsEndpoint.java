package io.traverse.cli.agent;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/**
 * {@code GET /metrics} in Prometheus text format, served by the JDK's own HTTP server: one
 * scrape every few seconds needs no event loop, and the agent stays free of Netty's threads.
 */
final class MetricsEndpoint implements Closeable {
    private final HttpServer server;

    private MetricsEndpoint(HttpServer server) {
        this.server = server;
    }

    static MetricsEndpoint start(String bind, int port, AgentMetrics metrics) throws IOException {
        HttpServer server;
        try {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getByName(bind), port), 16);
        } catch (BindException e) {
            throw new BindException("cannot serve metrics on " + bind + ":" + port + ": " + e.getMessage());
        }
        server.createContext("/", exchange -> {
            try (exchange) {
                if (!exchange.getRequestURI().getPath().equals("/metrics")) {
                    send(exchange, 404, "text/plain; charset=utf-8", "only /metrics is here\n");
                } else if (!exchange.getRequestMethod().equals("GET")
                        && !exchange.getRequestMethod().equals("HEAD")) {
                    send(exchange, 405, "text/plain; charset=utf-8", "GET only\n");
                } else {
                    send(exchange, 200, "text/plain; version=0.0.4; charset=utf-8", metrics.scrape());
                }
            }
        });
        server.start();
        return new MetricsEndpoint(server);
    }

    private static void send(HttpExchange exchange, int status, String type, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", type);
        boolean head = exchange.getRequestMethod().equals("HEAD");
        exchange.sendResponseHeaders(status, head ? -1 : bytes.length);
        if (!head) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        }
    }

    int port() {
        return server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
