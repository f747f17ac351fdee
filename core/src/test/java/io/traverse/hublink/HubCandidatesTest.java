package io.traverse.hublink;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.util.List;
import org.junit.jupiter.api.Test;

class HubCandidatesTest {
    private static final InetSocketAddress A = InetSocketAddress.createUnresolved("hub-a", 17000);
    private static final InetSocketAddress B = new InetSocketAddress("198.18.0.2", 17000);
    private static final InetSocketAddress C = new InetSocketAddress("198.18.0.3", 17000);

    @Test
    void configuredFirstThenDiscoveredThenLearnedWithoutRepeats() {
        HubCandidates c = new HubCandidates();
        c.addConfigured(List.of(A, B));
        c.setLearned(List.of(C, InetSocketAddress.createUnresolved("198.18.0.2", 17000)));
        assertThat(c.order()).containsExactly(A, B, C);
    }

    @Test
    void afterAFailureTheNextHubComesFirstAndTheFailedOneLast() {
        HubCandidates c = new HubCandidates();
        c.addConfigured(List.of(A, B, C));
        c.failed(A);
        assertThat(c.order()).containsExactly(B, C, A);
        c.failed(C);
        assertThat(c.order()).containsExactly(A, B, C);
    }

    @Test
    void learnedHubsAreReplacedAndBounded() {
        HubCandidates c = new HubCandidates();
        c.setLearned(List.of(B));
        c.setLearned(List.of(C));
        assertThat(c.order()).containsExactly(C);
        java.util.ArrayList<InetSocketAddress> many = new java.util.ArrayList<>();
        for (int i = 0; i < 200; i++) {
            many.add(new InetSocketAddress("198.18.1." + (i % 250), 17000 + i));
        }
        c.setLearned(many);
        assertThat(c.order()).hasSize(HubCandidates.MAX_LEARNED);
    }
}
