package io.traverse.cli.perf;

import io.traverse.Traverse;
import io.traverse.TraverseServerSocket;
import io.traverse.cli.LogLevel;
import io.traverse.cli.NodeOptions;
import io.traverse.testbed.DigestEcho;
import io.traverse.testbed.PathMeasurement;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code traverse perf serve}: the far end of {@code traverse perf}, until stopped. */
@Command(
        name = "serve",
        mixinStandardHelpOptions = true,
        description = {
            "Serve 'traverse perf' from other sites until stopped (Ctrl-C).",
            "Opens three services on virtual ports PORT, PORT+1 and PORT+2 (uploads checked by SHA-256, a one-byte echo,"
                    + " downloads of a seeded stream) and, unless --no-plain, the same on plain TCP ports of every interface,"
                    + " so that plain TCP is measured beside Traverse where it gets through."
        })
public final class PerfServeCommand implements Callable<Integer> {
    @Option(
            names = "--name",
            paramLabel = "NAME",
            description = "register this name at the hub network, for 'traverse perf NAME'")
    String name;

    @Option(
            names = "--port",
            paramLabel = "PORT",
            defaultValue = "" + PerfPorts.DEFAULT_BASE,
            description = "first of the three ports (default: ${DEFAULT-VALUE})")
    int port;

    @Option(names = "--no-plain", description = "do not open the plain TCP ports")
    boolean noPlain;

    @Mixin
    NodeOptions node = new NodeOptions();

    @Spec
    CommandSpec spec;

    /** Stops {@link #call()} (tests); Ctrl-C stops the JVM. */
    final CountDownLatch stop = new CountDownLatch(1);

    @Override
    public Integer call() throws Exception {
        LogLevel.defaultTo("info");
        PerfPorts ports = PerfPorts.from(port, spec);
        PrintWriter out = spec.commandLine().getOut();
        ExecutorService connections = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "perf-connection");
            t.setDaemon(true);
            return t;
        });
        List<ServerSocket> listeners = new ArrayList<>();
        try (Traverse traverse = node.start()) {
            String servedBy = traverse.identity().id().map(Object::toString).orElse("-");
            TraverseServerSocket upload = name == null
                    ? traverse.serverSocketFactory().createServerSocket(ports.upload())
                    : traverse.serverSocketFactory().createServerSocket(name, ports.upload());
            listeners.add(upload);
            listeners.add(traverse.serverSocketFactory().createServerSocket(ports.echo()));
            listeners.add(traverse.serverSocketFactory().createServerSocket(ports.download()));
            if (!noPlain) {
                listeners.add(new ServerSocket(ports.upload()));
                listeners.add(new ServerSocket(ports.echo()));
                listeners.add(new ServerSocket(ports.download()));
            }
            for (int i = 0; i < listeners.size(); i++) {
                Service service = switch (i % 3) {
                    case 0 -> s -> DigestEcho.serve(s, servedBy);
                    case 1 -> PathMeasurement::serveEcho;
                    default -> PathMeasurement::serveSource;
                };
                accept(listeners.get(i), service, connections);
            }
            String host = ((io.traverse.VirtualSocketAddress) upload.getLocalSocketAddress()).getHostString();
            out.println("perf server " + host + (name == null ? "" : ", name " + name) + ", virtual ports "
                    + ports.upload() + "-" + ports.download()
                    + (noPlain ? "" : ", plain TCP ports " + ports.upload() + "-" + ports.download()));
            out.println("measure it from another site: traverse perf " + (name != null ? name : host)
                    + (ports.base() == PerfPorts.DEFAULT_BASE ? "" : " --port " + ports.base())
                    + " --hub HUB --token-file FILE");
            out.flush();
            stop.await();
        } finally {
            for (ServerSocket l : listeners) {
                try {
                    l.close();
                } catch (IOException ignored) {
                    // closing anyway
                }
            }
            connections.shutdownNow();
        }
        return 0;
    }

    /** Looked up late: the log level is set when the command runs, before the first logger. */
    private static Logger log() {
        return LoggerFactory.getLogger(PerfServeCommand.class);
    }

    private interface Service {
        void handle(Socket socket) throws IOException;
    }

    private static void accept(ServerSocket listener, Service service, ExecutorService connections) {
        Thread acceptor = new Thread(
                () -> {
                    while (!listener.isClosed()) {
                        Socket s;
                        try {
                            s = listener.accept();
                        } catch (IOException e) {
                            return; // closed
                        }
                        connections.execute(() -> {
                            try {
                                s.setSoTimeout(120_000);
                                service.handle(s);
                            } catch (IOException e) {
                                log().info(
                                                "A perf connection from {} failed: {}",
                                                s.getRemoteSocketAddress(),
                                                e.toString());
                            }
                        });
                    }
                },
                "perf-accept-" + listener.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }
}
