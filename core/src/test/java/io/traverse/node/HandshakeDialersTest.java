package io.traverse.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.traverse.identity.LocalInterfaces;
import io.traverse.identity.NodeIdentity;
import io.traverse.identity.RandomIdentities;
import io.traverse.protocol.Deadline;
import io.traverse.spi.AttemptFailedException;
import io.traverse.spi.ConnectOptions;
import io.traverse.spi.ConnectRequest;
import io.traverse.spi.FailureScope;
import io.traverse.spi.HandshakeDialer;
import io.traverse.spi.HandshakeDialerProvider;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Core's own class path has no traverse-direct: what a node without a dialer does. */
class HandshakeDialersTest {
    private final NodeIdentity target = RandomIdentities.identity(new Random(RandomIdentities.SEED));

    @Test
    void withoutADialerOnTheClassPathEveryDialFailsAsAModuleFailureThatSaysWhy() throws Exception {
        LocalInterfaces interfaces = LocalInterfaces.scan();
        HandshakeDialer dialer = HandshakeDialers.load(new HandshakeDialerProvider.Setup(
                () -> target, interfaces, interfaces, null, 1_000_000, Runnable::run, null, null, null, false));
        ConnectRequest request =
                new ConnectRequest(target, 0, Deadline.after(Duration.ofSeconds(1)), ConnectOptions.NONE);

        assertThatThrownBy(() -> dialer.attempt(request))
                .isInstanceOf(AttemptFailedException.class)
                .hasMessageContaining("no handshake dialer is on the class path")
                .hasMessageContaining("traverse-direct")
                .satisfies(e ->
                        assertThat(FailureScope.of((AttemptFailedException) e)).isEqualTo(FailureScope.MODULE));
        assertThatThrownBy(() -> dialer.dialBack(request, new byte[16], null))
                .isInstanceOf(AttemptFailedException.class)
                .hasMessageContaining("traverse-direct");
        assertThat(dialer.onOtherPrivateNetworks(target)).isFalse();
    }
}
