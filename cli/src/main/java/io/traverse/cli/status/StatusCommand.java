package io.traverse.cli.status;

import io.traverse.hub.HubConfig;
import io.traverse.hub.HubStatus;
import io.traverse.hub.http.StatusJson;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code traverse status}: what a hub knows of the hub network, read from its HTTP port. */
@Command(
        name = "status",
        mixinStandardHelpOptions = true,
        description = {
            "Print the hub network as one hub sees it.",
            "Hubs and routes, the hub's links with their round-trip times, nodes and names, read from the hub's "
                    + "HTTP port (/status)."
        })
public final class StatusCommand implements Callable<Integer> {
    static final int DEFAULT_HTTP_PORT = HubConfig.DEFAULT_HTTP_PORT;

    @Spec
    CommandSpec spec;

    @Parameters(
            index = "0",
            arity = "0..1",
            paramLabel = "HUB",
            defaultValue = "127.0.0.1:" + DEFAULT_HTTP_PORT,
            description = "host[:port] of the hub's HTTP port, or an http:// URL (default: ${DEFAULT-VALUE})")
    String hub;

    @Option(names = "--json", description = "print the status document as the hub sent it")
    boolean json;

    @Option(
            names = "--timeout",
            defaultValue = "5",
            paramLabel = "SECONDS",
            description = "give up after this long (default: ${DEFAULT-VALUE})")
    int timeoutSeconds;

    @Override
    public Integer call() {
        URI uri;
        try {
            uri = statusUri(hub);
        } catch (IllegalArgumentException e) {
            spec.commandLine().getErr().println("traverse status: " + e.getMessage());
            return 2;
        }
        String body;
        try {
            body = fetch(uri, Duration.ofSeconds(timeoutSeconds));
        } catch (IOException e) {
            spec.commandLine().getErr().println("traverse status: " + e.getMessage());
            return 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 1;
        }
        if (json) {
            spec.commandLine().getOut().print(body);
            spec.commandLine().getOut().flush(); // print does not flush, and main exits right after
            return 0;
        }
        HubStatus status;
        try {
            status = StatusJson.read(body);
        } catch (IllegalArgumentException e) {
            spec.commandLine()
                    .getErr()
                    .println(
                            "traverse status: " + uri + " did not send a hub status document (" + e.getMessage() + ")");
            return 1;
        }
        spec.commandLine().getOut().print(StatusText.render(status));
        spec.commandLine().getOut().flush();
        return 0;
    }

    /** {@code host}, {@code host:port}, {@code [v6]:port} or a full http URL, to the status page. */
    static URI statusUri(String hub) {
        String text = hub.strip();
        if (text.startsWith("http://") || text.startsWith("https://")) {
            URI given = URI.create(text);
            return given.getPath() == null
                            || given.getPath().isEmpty()
                            || given.getPath().equals("/")
                    ? given.resolve("/status")
                    : given;
        }
        String authority;
        long colons = text.chars().filter(c -> c == ':').count();
        if (text.startsWith("[")) {
            authority = text.contains("]:") ? text : text + ":" + DEFAULT_HTTP_PORT;
        } else if (colons == 0) {
            authority = text + ":" + DEFAULT_HTTP_PORT;
        } else if (colons == 1) {
            authority = text;
        } else {
            authority = "[" + text + "]:" + DEFAULT_HTTP_PORT; // a bare IPv6 address
        }
        try {
            URI uri = new URI("http://" + authority + "/status");
            if (uri.getHost() == null || uri.getPort() < 1) {
                throw new IllegalArgumentException("not a hub address: '" + hub
                        + "' (expected host[:port], e.g. hub1.example.org:" + DEFAULT_HTTP_PORT + ")");
            }
            return uri;
        } catch (java.net.URISyntaxException e) {
            throw new IllegalArgumentException("not a hub address: '" + hub
                    + "' (expected host[:port], e.g. hub1.example.org:" + DEFAULT_HTTP_PORT + ")");
        }
    }

    private static String fetch(URI uri, Duration timeout) throws IOException, InterruptedException {
        HttpClient client = HttpClient.newBuilder().connectTimeout(timeout).build();
        HttpResponse<String> response;
        try {
            response = client.send(
                    HttpRequest.newBuilder(uri).timeout(timeout).GET().build(), HttpResponse.BodyHandlers.ofString());
        } catch (ConnectException e) {
            throw new IOException(
                    "no hub HTTP port answers at " + uri.getAuthority()
                            + " (is the hub running, and started with this --http-port?)",
                    e);
        } catch (HttpTimeoutException e) {
            throw new IOException(uri + " did not answer within " + timeout.toSeconds() + " s", e);
        } catch (IOException e) {
            // e.g. the link port, which closes a connection that does not start with the link preamble
            throw new IOException(
                    uri.getAuthority() + " is not a hub's HTTP port: it closed the connection without an HTTP answer"
                            + " (the link port? status is on the hub's --http-port, default 17080)",
                    e);
        }
        if (response.statusCode() != 200) {
            throw new IOException(uri + " answered HTTP " + response.statusCode()
                    + (response.statusCode() == 404
                            ? " (not a hub's HTTP port? status is on the hub's --http-port, default 17080)"
                            : ""));
        }
        return response.body();
    }
}
