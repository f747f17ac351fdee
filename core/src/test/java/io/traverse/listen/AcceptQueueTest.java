package io.traverse.listen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.InterruptedIOException;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class AcceptQueueTest {
    @Test
    void reservationsAndDeliveriesShareTheBacklog() throws Exception {
        AcceptQueue q = new AcceptQueue(2);
        assertThat(q.capacity()).isEqualTo(2);
        assertThat(q.tryReserve()).isTrue();
        assertThat(q.tryReserve()).isTrue();
        assertThat(q.tryReserve()).as("backlog full of reservations").isFalse();
        q.release();
        assertThat(q.tryReserve()).as("a released slot is free again").isTrue();

        Socket s1 = new Socket();
        q.deliver(s1);
        assertThat(q.tryReserve()).as("one delivered, one reserved: still full").isFalse();
        assertThat(q.take(1000)).isSameAs(s1);
        assertThat(q.tryReserve()).as("accepting frees the slot").isTrue();
        q.release();
        q.release();
        s1.close();
    }

    @Test
    void deliversInOrder() throws Exception {
        AcceptQueue q = new AcceptQueue(5);
        List<Socket> sockets = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            assertThat(q.tryReserve()).isTrue();
            Socket s = new Socket();
            sockets.add(s);
            q.deliver(s);
        }
        for (Socket s : sockets) {
            assertThat(q.take(0)).isSameAs(s);
            s.close();
        }
    }

    @Test
    void takeTimesOutLikeServerSocketAccept() {
        AcceptQueue q = new AcceptQueue(1);
        long start = System.nanoTime();
        assertThatThrownBy(() -> q.take(150))
                .isInstanceOf(SocketTimeoutException.class)
                .hasMessage("Accept timed out");
        assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(150));
    }

    @Test
    void takeWakesUpForADelivery() throws Exception {
        AcceptQueue q = new AcceptQueue(1);
        CompletableFuture<Socket> taken = CompletableFuture.supplyAsync(() -> {
            try {
                return q.take(0);
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        Thread.sleep(100);
        assertThat(q.tryReserve()).isTrue();
        Socket s = new Socket();
        q.deliver(s);
        assertThat(taken.get(5, TimeUnit.SECONDS)).isSameAs(s);
        s.close();
    }

    @Test
    void closeWakesEveryTakerAndClosesQueuedSockets() throws Exception {
        AcceptQueue q = new AcceptQueue(3);
        List<CompletableFuture<Socket>> takers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            int timeout = i == 0 ? 0 : 60_000;
            takers.add(CompletableFuture.supplyAsync(
                    () -> {
                        try {
                            return q.take(timeout);
                        } catch (Exception e) {
                            throw new RuntimeException(e);
                        }
                    },
                    runnable -> new Thread(runnable).start()));
        }
        Thread.sleep(200); // let them block
        q.close();
        for (CompletableFuture<Socket> taker : takers) {
            assertThatThrownBy(() -> taker.get(5, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .cause()
                    .isInstanceOf(SocketException.class)
                    .hasMessage("Socket closed");
        }
        assertThat(q.isClosed()).isTrue();

        AcceptQueue withQueued = new AcceptQueue(3);
        Socket waiting = new Socket();
        assertThat(withQueued.tryReserve()).isTrue();
        withQueued.deliver(waiting);
        assertThat(withQueued.tryReserve()).isTrue(); // handshake still in progress
        withQueued.close();
        assertThat(waiting.isClosed())
                .as("a connection nobody will accept is closed")
                .isTrue();
        Socket late = new Socket();
        withQueued.deliver(late);
        assertThat(late.isClosed()).as("delivered after close: closed at once").isTrue();
        assertThat(withQueued.tryReserve()).isFalse();
        assertThatThrownBy(() -> withQueued.take(0))
                .isInstanceOf(SocketException.class)
                .hasMessage("Socket closed");
        assertThatThrownBy(() -> withQueued.take(10))
                .isInstanceOf(SocketException.class)
                .hasMessage("Socket closed");
    }

    @Test
    void interruptedTakeSaysSo() throws Exception {
        AcceptQueue q = new AcceptQueue(1);
        CompletableFuture<Throwable> failure = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                q.take(0);
                failure.complete(null);
            } catch (Throwable e) {
                failure.complete(e);
            }
        });
        t.start();
        await().atMost(Duration.ofSeconds(5)).until(() -> t.getState() == Thread.State.WAITING);
        t.interrupt();
        assertThat(failure.get(5, TimeUnit.SECONDS)).isInstanceOf(InterruptedIOException.class);
    }

    @Test
    void capacityMustBePositive() {
        assertThatThrownBy(() -> new AcceptQueue(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("0");
    }
}
