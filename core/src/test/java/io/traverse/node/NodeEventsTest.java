package io.traverse.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.traverse.TraverseListener;
import io.traverse.identity.NodeId;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class NodeEventsTest {
    private final NodeEvents events = new NodeEvents("test-events");

    @AfterEach
    void close() {
        events.close();
    }

    @Test
    void aListenerThatThrowsDoesNotStopTheOthersOrLaterEvents() {
        List<String> heard = new CopyOnWriteArrayList<>();
        events.add(new TraverseListener() {
            @Override
            public void pathUpgraded(String cacheKey, String previousModule, String newModule) {
                throw new IllegalStateException("listener bug");
            }
        });
        events.add(new TraverseListener() {
            @Override
            public void pathUpgraded(String cacheKey, String previousModule, String newModule) {
                heard.add(cacheKey);
            }
        });
        events.pathUpgraded("hub 1", "routed", "direct");
        events.pathUpgraded("hub 2", "routed", "direct");
        await().atMost(Duration.ofSeconds(5)).until(() -> heard.size() == 2);
        assertThat(heard).containsExactly("hub 1", "hub 2");
    }

    @Test
    void eventsArriveInOrderOnTheNodesEventThreadNotTheReporters() {
        List<String> heard = new CopyOnWriteArrayList<>();
        List<String> threads = new CopyOnWriteArrayList<>();
        events.add(new TraverseListener() {
            @Override
            public void connectFailed(SocketAddress target, IOException failure) {
                heard.add(failure.getMessage());
                threads.add(Thread.currentThread().getName());
            }

            @Override
            public void peerUnreachable(String module, NodeId peer, String reason) {
                heard.add(reason);
                threads.add(Thread.currentThread().getName());
            }
        });
        InetSocketAddress target = InetSocketAddress.createUnresolved("x", 1);
        for (int i = 0; i < 500; i++) {
            if (i % 2 == 0) {
                events.connectFailed(target, new IOException("e" + i));
            } else {
                events.peerUnreachable("routed", NodeId.random(), "e" + i);
            }
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> heard.size() == 500);
        for (int i = 0; i < 500; i++) {
            assertThat(heard.get(i)).isEqualTo("e" + i);
        }
        assertThat(threads).allMatch("test-events"::equals);
    }

    @Test
    void withoutListenersNothingIsQueuedAndARemovedListenerHearsNoMore() throws Exception {
        List<String> heard = new CopyOnWriteArrayList<>();
        TraverseListener listener = new TraverseListener() {
            @Override
            public void pathUpgraded(String cacheKey, String previousModule, String newModule) {
                heard.add(cacheKey);
            }
        };
        events.pathUpgraded("before", "routed", "direct");
        events.add(listener);
        events.pathUpgraded("during", "routed", "direct");
        await().atMost(Duration.ofSeconds(5)).until(() -> heard.size() == 1);
        events.remove(listener);
        events.pathUpgraded("after", "routed", "direct");
        Thread.sleep(100);
        assertThat(heard).containsExactly("during");
    }
}
