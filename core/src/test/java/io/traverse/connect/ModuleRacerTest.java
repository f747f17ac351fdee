package io.traverse.connect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.traverse.TraverseListener;
import io.traverse.identity.NodeId;
import io.traverse.identity.NodeIdentity;
import io.traverse.protocol.Deadline;
import io.traverse.spi.AttemptFailedException;
import io.traverse.spi.ConnectOptions;
import io.traverse.spi.ConnectRequest;
import io.traverse.spi.ConnectionAttempt;
import io.traverse.spi.ConnectionModule;
import io.traverse.spi.FailureScope;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** What the module chain tells the application when nothing got through. */
class ModuleRacerTest {
    private final ExecutorService executor = Executors.newCachedThreadPool();
    private final HubModuleCache cache = new HubModuleCache(TimeUnit.MINUTES.toNanos(5));
    private final NodeIdentity target =
            NodeIdentity.builder().id(NodeId.random()).build();

    @AfterEach
    void stop() {
        executor.shutdownNow();
    }

    private ModuleRacer racer(ConnectionModule... modules) {
        PathUpgradeProbes probes = new PathUpgradeProbes(
                cache, new TraverseListener() {}, TimeUnit.MILLISECONDS.toNanos(20), Duration.ofSeconds(1), executor);
        return new ModuleRacer(
                List.of(modules), cache, new ModuleCounters(), TimeUnit.MILLISECONDS.toNanos(20), executor, probes);
    }

    private ConnectRequest request(Duration timeout) {
        return new ConnectRequest(target, 80, Deadline.after(timeout), ConnectOptions.NONE);
    }

    @Test
    void aFailedConnectNamesEveryModulesReasonInChainOrderAndWhyOthersWereNotTried() {
        ModuleRacer racer = racer(
                failing("direct", "10.0.0.1:80: Connection refused; 10.0.0.2:80: Network is unreachable"),
                notPlanned("reverse", "no hub link to ask the node to dial back"),
                failing("routed", "the hubs know no route to the node"));
        cache.remember(HubModuleCache.keyOf(target), "routed"); // raced first, still told in chain order

        Throwable thrown = catchThrowable(
                () -> racer.prepare(request(Duration.ofSeconds(5))).connect());

        assertThat(thrown).isInstanceOf(AttemptFailedException.class);
        assertThat(thrown.getMessage())
                .isEqualTo(
                        "direct: (10.0.0.1:80: Connection refused; 10.0.0.2:80: Network is unreachable); "
                                + "reverse: not tried (no hub link to ask the node to dial back); routed: the hubs know no route to the node");
        assertThat(((AttemptFailedException) thrown).scope()).isEqualTo(FailureScope.MODULE);
        assertThat(thrown.getSuppressed()).as("every module's own exception").hasSize(3);
    }

    @Test
    void aSingleFailingModuleStillSaysWhyTheOthersWereNotTried() {
        ModuleRacer racer = racer(
                failing("direct", "10.0.0.1:80: Connection refused"),
                notPlanned("routed", "no hub link to route a connection (no hub)"));

        Throwable thrown = catchThrowable(
                () -> racer.prepare(request(Duration.ofSeconds(5))).connect());

        assertThat(thrown)
                .isInstanceOf(AttemptFailedException.class)
                .hasMessage(
                        "direct: 10.0.0.1:80: Connection refused; routed: not tried (no hub link to route a connection (no hub))");
    }

    @Test
    void atTheDeadlineAModuleStillRunningIsSaidToHaveGivenNoAnswer() {
        CountDownLatch never = new CountDownLatch(1);
        ModuleRacer racer = racer(failing("direct", "10.0.0.1:80: Connection refused"), hanging("routed", never));

        Throwable thrown = catchThrowable(
                () -> racer.prepare(request(Duration.ofMillis(300))).connect());

        assertThat(thrown)
                .isInstanceOf(SocketTimeoutException.class)
                .hasMessage(
                        "Connect timed out (direct: 10.0.0.1:80: Connection refused; routed: no answer before the deadline)");
    }

    @Test
    void aModuleStillWaitingAtTheDeadlineSaysWhatItWaitedFor() {
        CountDownLatch never = new CountDownLatch(1);
        ConnectionModule waiting = module(
                "routed",
                () -> {
                    try {
                        never.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    throw new AttemptFailedException(FailureScope.PATH, "cancelled");
                },
                "waiting for a hub link to route a connection (hub link connecting)");
        ModuleRacer racer = racer(failing("direct", "10.0.0.1:80: Connection refused"), waiting);

        Throwable thrown = catchThrowable(
                () -> racer.prepare(request(Duration.ofMillis(300))).connect());

        assertThat(thrown)
                .isInstanceOf(SocketTimeoutException.class)
                .hasMessage(
                        "Connect timed out (direct: 10.0.0.1:80: Connection refused; "
                                + "routed: no answer before the deadline: waiting for a hub link to route a connection (hub link connecting))");
    }

    @Test
    void aPlainConnectExceptionOfTheOnlyModuleTriedIsToldWithTheOthers() {
        ModuleRacer racer = racer(
                module("direct", () -> {
                    throw new java.net.ConnectException("Connection refused");
                }),
                notPlanned("reverse", "no hub link"));

        Throwable thrown = catchThrowable(
                () -> racer.prepare(request(Duration.ofSeconds(5))).connect());

        assertThat(thrown)
                .isInstanceOf(java.net.ConnectException.class)
                .hasMessage("direct: Connection refused; reverse: not tried (no hub link)");
    }

    @Test
    void severalReasonsOfAModuleThatWasNotTriedGetNoSecondBrackets() {
        ModuleRacer racer = racer(failing("direct", "refused"), notPlanned("routed", "no hub link; and none coming"));

        Throwable thrown = catchThrowable(
                () -> racer.prepare(request(Duration.ofSeconds(5))).connect());

        assertThat(thrown).hasMessage("direct: refused; routed: not tried (no hub link; and none coming)");
    }

    @Test
    void modulesAfterTheWinnerAreNotEvenPlanned() throws Exception {
        java.util.concurrent.atomic.AtomicInteger plans = new java.util.concurrent.atomic.AtomicInteger();
        ConnectionModule counted = new ConnectionModule() {
            @Override
            public String name() {
                return "routed";
            }

            @Override
            public ConnectionAttempt plan(ConnectRequest request) throws AttemptFailedException {
                plans.incrementAndGet();
                throw new AttemptFailedException(FailureScope.MODULE, "no hub link");
            }
        };
        Socket won = new Socket();
        ModuleRacer racer = racer(module("direct", () -> won), counted);

        assertThat(racer.prepare(request(Duration.ofSeconds(5))).connect().socket())
                .isSameAs(won);
        assertThat(plans).as("a module the race never launched").hasValue(0);
    }

    @Test
    void whenNoModuleAppliesTheMessageSaysSo() {
        ModuleRacer racer =
                racer(notPlanned("direct", "the target has no address"), notPlanned("routed", "no hub link"));

        Throwable thrown = catchThrowable(
                () -> racer.prepare(request(Duration.ofSeconds(5))).connect());

        assertThat(thrown)
                .isInstanceOf(AttemptFailedException.class)
                .hasMessageStartingWith("no module can reach ")
                .hasMessageEndingWith(
                        "(direct: not tried (the target has no address); routed: not tried (no hub link))");
    }

    @Test
    void aDefinitiveAnswerFromTheTargetIsPassedOnAsItIs() {
        ModuleRacer racer = racer(target("direct", "nothing listens on virtual port 80"), failing("routed", "unused"));

        Throwable thrown = catchThrowable(
                () -> racer.prepare(request(Duration.ofSeconds(5))).connect());

        assertThat(thrown).isInstanceOf(AttemptFailedException.class).hasMessage("nothing listens on virtual port 80");
    }

    private static ConnectionModule failing(String name, String why) {
        return module(name, () -> {
            throw new AttemptFailedException(FailureScope.MODULE, why);
        });
    }

    private static ConnectionModule target(String name, String why) {
        return module(name, () -> {
            throw new AttemptFailedException(FailureScope.TARGET, why);
        });
    }

    private static ConnectionModule hanging(String name, CountDownLatch release) {
        return module(name, () -> {
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            throw new AttemptFailedException(FailureScope.PATH, "cancelled");
        });
    }

    private static ConnectionModule notPlanned(String name, String why) {
        return new ConnectionModule() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public ConnectionAttempt plan(ConnectRequest request) throws AttemptFailedException {
                throw new AttemptFailedException(FailureScope.MODULE, why);
            }
        };
    }

    private interface Connect {
        Socket connect() throws IOException;
    }

    private static ConnectionModule module(String name, Connect connect) {
        return module(name, connect, null);
    }

    private static ConnectionModule module(String name, Connect connect, String progress) {
        return new ConnectionModule() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public ConnectionAttempt plan(ConnectRequest request) {
                return new ConnectionAttempt() {
                    @Override
                    public Socket connect() throws IOException {
                        return connect.connect();
                    }

                    @Override
                    public void cancel() {}

                    @Override
                    public String progress() {
                        return progress;
                    }
                };
            }
        };
    }
}
