package io.traverse.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.Socket;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class SocketRecordsTest {
    @Test
    void remembersPerSocketObjectNotPerEqualSocket() throws Exception {
        SocketRecords<String> records = new SocketRecords<>();
        try (Socket a = new Socket();
                Socket b = new Socket()) {
            records.put(a, "direct");
            assertThat(records.get(a)).isEqualTo("direct");
            assertThat(records.get(b)).isNull();
            records.put(a, "reverse");
            assertThat(records.get(a)).isEqualTo("reverse");
            assertThat(records.size()).isEqualTo(1);
            assertThat(records.remove(a)).isEqualTo("reverse");
            assertThat(records.get(a)).isNull();
            assertThat(records.remove(b)).isNull();
        }
    }

    @Test
    void forgetsSocketsTheApplicationDropped() {
        SocketRecords<String> records = new SocketRecords<>();
        Socket kept = new Socket();
        for (int i = 0; i < 1000; i++) {
            records.put(new Socket(), "dropped " + i);
        }
        records.put(kept, "kept");
        await().atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> {
                    System.gc();
                    return records.size() == 1;
                });
        assertThat(records.get(kept)).isEqualTo("kept");
    }
}
