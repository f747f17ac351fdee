package io.traverse.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.traverse.TraverseConfig;
import io.traverse.TraverseConfigException;
import io.traverse.settings.LongPollSettings;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The long-poll keys: defaults, forms, and the checks between them. */
class LongPollSettingsTest {
    @Test
    void defaultsAreTheDocumentedOnes() {
        LongPollSettings s = TraverseConfig.defaults().longPoll();
        assertThat(s.tunnel()).isEqualTo("auto");
        assertThat(s.fallBack()).isTrue();
        assertThat(s.always()).isFalse();
        assertThat(s.serverTimeout()).isEqualTo(Duration.ofSeconds(25));
        assertThat(s.clientTimeout()).isEqualTo(Duration.ofSeconds(35));
        assertThat(s.regenerate()).isZero();
        assertThat(s.batchSize()).isEqualTo(1024 * 1024);
        assertThat(s.batchTimespan()).isZero();
    }

    @Test
    void valuesAreReadInTheirForms() {
        LongPollSettings s = TraverseConfig.builder()
                .set("traverse.http.tunnel", "LongPoll")
                .set("traverse.longpoll.batch.size", "256k")
                .set("traverse.longpoll.server.timeout", "1s")
                .set("traverse.longpoll.client.timeout", "2s")
                .set("traverse.longpoll.client.regenerate", "100ms")
                .set("traverse.longpoll.batch.timespan", "50ms")
                .build()
                .longPoll();
        assertThat(s.always()).isTrue();
        assertThat(s.batchSize()).isEqualTo(256 * 1024);
        assertThat(s.serverTimeout()).isEqualTo(Duration.ofSeconds(1));
        assertThat(s.regenerate()).isEqualTo(Duration.ofMillis(100));
        assertThat(TraverseConfig.builder()
                        .set("traverse.http.tunnel", "connect")
                        .build()
                        .longPoll()
                        .fallBack())
                .isFalse();
    }

    @Test
    void badValuesNameTheKeyAndTheRule() {
        assertThatThrownBy(() -> TraverseConfig.builder().set("traverse.http.tunnel", "websocket"))
                .isInstanceOf(TraverseConfigException.class)
                .hasMessageContaining("traverse.http.tunnel")
                .hasMessageContaining("none of auto");
        assertThatThrownBy(() -> TraverseConfig.builder()
                        .set("traverse.longpoll.batch.size", "2m")
                        .build())
                .isInstanceOf(TraverseConfigException.class)
                .hasMessageContaining("batch size 2097152 is not within 1-1048576");
        assertThatThrownBy(() -> TraverseConfig.builder().set("traverse.longpoll.batch.size", "lots"))
                .isInstanceOf(TraverseConfigException.class)
                .hasMessageContaining("traverse.longpoll.batch.size");
        assertThatThrownBy(() -> TraverseConfig.builder()
                        .set("traverse.longpoll.server.timeout", "40s")
                        .build())
                .isInstanceOf(TraverseConfigException.class)
                .hasMessageContaining("client timeout (35000 ms) must exceed the server timeout (40000 ms)");
        assertThatThrownBy(() -> TraverseConfig.builder()
                        .set("traverse.longpoll.client.regenerate", "1s")
                        .build())
                .isInstanceOf(TraverseConfigException.class)
                .hasMessageContaining("client regenerate time 1000 ms is not within 0-500 ms");
    }
}
