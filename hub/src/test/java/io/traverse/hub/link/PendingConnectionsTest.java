package io.traverse.hub.link;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.embedded.EmbeddedChannel;
import io.traverse.hub.AdmissionLimit;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The bound on connections waiting: full, the one waiting longest is closed; a released or closed one frees its place. */
class PendingConnectionsTest {
    private final List<AdmissionLimit> refused = new ArrayList<>();
    private final PendingConnections pending =
            new PendingConnections("test port", AdmissionLimit.HANDSHAKES, 3, null, 0, refused::add);

    @Test
    void whenFullTheLongestWaitingIsClosedForTheNewOne() {
        List<EmbeddedChannel> channels = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            EmbeddedChannel ch = new EmbeddedChannel();
            assertThat(pending.admit(ch)).isTrue();
            channels.add(ch);
        }
        assertThat(channels).extracting(EmbeddedChannel::isOpen).containsExactly(false, false, true, true, true);
        assertThat(pending.size()).isEqualTo(3);
        assertThat(refused).containsExactly(AdmissionLimit.HANDSHAKES, AdmissionLimit.HANDSHAKES);
        assertThat(pending.closed()).isEqualTo(2);
    }

    @Test
    void connectionsThatHaveNotBegunAreClosedBeforeThoseThatHave() {
        EmbeddedChannel real = new EmbeddedChannel();
        pending.admit(real);
        real.attr(PendingConnections.SLOT).get().begun();
        List<EmbeddedChannel> silent = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            EmbeddedChannel ch = new EmbeddedChannel();
            pending.admit(ch);
            silent.add(ch);
        }
        assertThat(real.isOpen()).as("begun: kept while silent ones can go").isTrue();
        assertThat(silent).extracting(EmbeddedChannel::isOpen).containsExactly(false, false, true, true);
        EmbeddedChannel other = new EmbeddedChannel();
        pending.admit(other);
        other.attr(PendingConnections.SLOT).get().begun();
        EmbeddedChannel third = new EmbeddedChannel();
        pending.admit(third);
        third.attr(PendingConnections.SLOT).get().begun();
        assertThat(silent).extracting(EmbeddedChannel::isOpen).containsOnly(false);
        assertThat(real.isOpen()).isTrue();
        pending.admit(new EmbeddedChannel());
        assertThat(real.isOpen())
                .as("only begun ones left: the oldest of them goes")
                .isFalse();
        assertThat(other.isOpen()).isTrue();
        assertThat(third.isOpen()).isTrue();
    }

    @Test
    void aReleasedOrClosedConnectionGivesItsPlaceBackOnce() {
        EmbeddedChannel done = new EmbeddedChannel();
        EmbeddedChannel gone = new EmbeddedChannel();
        EmbeddedChannel waiting = new EmbeddedChannel();
        pending.admit(done);
        pending.admit(gone);
        pending.admit(waiting);
        PendingConnections.release(done);
        PendingConnections.release(done);
        gone.close();
        assertThat(pending.size()).isEqualTo(1);
        pending.admit(new EmbeddedChannel());
        pending.admit(new EmbeddedChannel());
        assertThat(waiting.isOpen()).as("room for two more without closing it").isTrue();
        assertThat(done.isOpen()).as("released: no longer the limit's to close").isTrue();
        pending.admit(new EmbeddedChannel());
        assertThat(waiting.isOpen()).isFalse();
        assertThat(done.isOpen()).isTrue();
    }
}
