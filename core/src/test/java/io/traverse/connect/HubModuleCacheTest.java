package io.traverse.connect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.traverse.identity.NodeId;
import io.traverse.identity.NodeIdentity;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class HubModuleCacheTest {
    private static final long HOUR = TimeUnit.HOURS.toNanos(1);

    @Test
    void remembersUntilTheTtlPasses() {
        HubModuleCache cache = new HubModuleCache(TimeUnit.MILLISECONDS.toNanos(200));
        cache.remember("hub 198.18.0.1:17000", "routed");
        long rememberedAt = System.nanoTime();
        // Looked up at once it is there (unless this machine stalled past the ttl, which the check allows for).
        boolean found = cache.lookup("hub 198.18.0.1:17000").isPresent();
        assertThat(found || System.nanoTime() - rememberedAt >= TimeUnit.MILLISECONDS.toNanos(200))
                .isTrue();
        await().atMost(Duration.ofSeconds(5))
                .until(() -> cache.lookup("hub 198.18.0.1:17000").isEmpty());
        assertThat(System.nanoTime() - rememberedAt)
                .as("not before the ttl")
                .isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(200));
        assertThat(cache.size()).as("an expired entry is dropped when found").isZero();
    }

    @Test
    void lookupAndRememberByKey() {
        HubModuleCache cache = new HubModuleCache(HOUR);
        assertThat(cache.lookup("hub a:1")).isEmpty();
        cache.remember("hub a:1", "direct");
        cache.remember("hub b:1", "routed");
        assertThat(cache.lookup("hub a:1")).contains("direct");
        assertThat(cache.lookup("hub b:1")).contains("routed");
        cache.remember("hub a:1", "splice");
        assertThat(cache.lookup("hub a:1")).contains("splice");
        assertThat(cache.size()).isEqualTo(2);
    }

    @Test
    void forgetOnlyWhenTheModuleStillMatches() {
        HubModuleCache cache = new HubModuleCache(HOUR);
        cache.remember("hub a:1", "direct");
        cache.forget("hub a:1", "routed"); // another module failed: the entry stays
        assertThat(cache.lookup("hub a:1")).contains("direct");
        cache.forget("hub a:1", "direct");
        assertThat(cache.lookup("hub a:1")).isEmpty();
        cache.forget("hub nope:1", "direct"); // nothing to forget: no error
        assertThat(cache.size()).isZero();
    }

    @Test
    void zeroTtlDisablesTheCache() {
        HubModuleCache cache = new HubModuleCache(0);
        cache.remember("hub a:1", "direct");
        assertThat(cache.lookup("hub a:1")).isEmpty();
        assertThat(cache.size()).isZero();
    }

    @Test
    void keyIsFirstHubThenIdThenFirstAddress() {
        NodeIdentity withHubs = NodeIdentity.parse("tv1-n1.a10-0-0-2p5000.h198-18-0-1p17000.hfd00z1p17001");
        NodeIdentity sameHubOtherNode = NodeIdentity.parse("tv1-n2.a10-0-0-3p5000.h198-18-0-1p17000");
        assertThat(HubModuleCache.keyOf(withHubs))
                .isEqualTo("hub 198.18.0.1:17000")
                .isEqualTo(HubModuleCache.keyOf(sameHubOtherNode));
        assertThat(HubModuleCache.keyOf(NodeIdentity.parse("tv1-n1.hfd00z1p17001")))
                .isEqualTo("hub [fd00::1]:17001");
        assertThat(HubModuleCache.keyOf(NodeIdentity.parse("tv1-n1.a10-0-0-2p5000")))
                .isEqualTo("node n1");
        assertThat(HubModuleCache.keyOf(
                        NodeIdentity.builder().id(NodeId.of("lonely")).build()))
                .isEqualTo("node lonely");
        assertThat(HubModuleCache.keyOf(NodeIdentity.parse("tv1.afd00z2p5000.a10-0-0-2p5000")))
                .isEqualTo("address [fd00::2]:5000");
        assertThat(HubModuleCache.keyOf(NodeIdentity.parse("tv1.x203-0-113-7p6000")))
                .isEqualTo("address 203.0.113.7:6000");
    }

    @Test
    void leastRecentlyUsedEntriesGoFirstWhenFull() {
        HubModuleCache cache = new HubModuleCache(HOUR);
        for (int i = 0; i < HubModuleCache.MAX_ENTRIES; i++) {
            cache.remember("k" + i, "direct");
        }
        assertThat(cache.lookup("k0")).contains("direct"); // k0 is now the most recently used
        cache.remember("extra", "routed");
        assertThat(cache.size()).isEqualTo(HubModuleCache.MAX_ENTRIES);
        assertThat(cache.lookup("k0")).contains("direct");
        assertThat(cache.lookup("k1"))
                .as("the least recently used entry was evicted")
                .isEmpty();
        assertThat(cache.lookup("extra")).contains("routed");
    }

    @Test
    void aRelaysWinDoesNotOverwriteAKernelModuleCachedMeanwhile() {
        HubModuleCache cache = new HubModuleCache(TimeUnit.MINUTES.toNanos(1));
        cache.rememberUnlessUpgraded("hub a", null, "routed", 0);
        assertThat(cache.lookup("hub a")).contains("routed");
        cache.remember("hub a", "splice", 5_000_000); // an attempt that outlived the relay's win got through
        cache.rememberUnlessUpgraded(
                "hub a", "routed", "routed", 0); // a connect that began with routed cached wins with it
        assertThat(cache.choice("hub a")).contains(new HubModuleCache.Choice("splice", 5_000_000));

        cache.forget("hub a", "splice"); // the cached module failed in a race that a relay then won
        cache.rememberUnlessUpgraded("hub a", "splice", "routed", 0);
        assertThat(cache.lookup("hub a")).as("the emptied entry is filled").contains("routed");
    }
}
