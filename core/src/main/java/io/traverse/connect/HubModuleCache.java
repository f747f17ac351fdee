package io.traverse.connect;

import io.traverse.identity.IpLiterals;
import io.traverse.identity.NodeIdentity;
import java.net.InetSocketAddress;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Which module last worked for a target hub (paper §3.3.4): a whole site shares one hub, so one
 * entry speeds up connections to every node behind it. Targets without a hub hint are keyed by
 * node id. Entries expire after a time-to-live, are dropped when the remembered module fails,
 * and the least recently used go first when the cache is full.
 */
public final class HubModuleCache {
    static final int MAX_ENTRIES = 4096;

    /** A remembered module (not named Entry: inside the map below that name is Map.Entry). */
    private record Remembered(String module, long setupNanos, long expiresAtNanos) {}

    /** A cached module and how long its attempt took when it was remembered (0 if unknown). */
    public record Choice(String module, long setupNanos) {}

    private final long ttlNanos;
    private final Map<String, Remembered> entries = new LinkedHashMap<>(64, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Remembered> eldest) {
            return size() > MAX_ENTRIES;
        }
    };

    public HubModuleCache(long ttlNanos) {
        this.ttlNanos = ttlNanos;
    }

    /** The cache key of a target: its first hub hint, else its id, else its first address. */
    public static String keyOf(NodeIdentity target) {
        if (!target.hubs().isEmpty()) {
            InetSocketAddress hub = target.hubs().get(0);
            return "hub " + IpLiterals.formatEndpoint(hub.getAddress(), hub.getPort());
        }
        if (target.id().isPresent()) {
            return "node " + target.id().get();
        }
        InetSocketAddress first = target.directAddresses().get(0);
        return "address " + IpLiterals.formatEndpoint(first.getAddress(), first.getPort());
    }

    public Optional<String> lookup(String key) {
        return choice(key).map(Choice::module);
    }

    /** The cached module for {@code key} with its last setup time. */
    public synchronized Optional<Choice> choice(String key) {
        Remembered e = entries.get(key);
        if (e == null) {
            return Optional.empty();
        }
        if (System.nanoTime() - e.expiresAtNanos >= 0) {
            entries.remove(key);
            return Optional.empty();
        }
        return Optional.of(new Choice(e.module, e.setupNanos));
    }

    public void remember(String key, String module) {
        remember(key, module, 0);
    }

    /** Remembers {@code module} for {@code key}, with how long its attempt took (0 if unknown). */
    public synchronized void remember(String key, String module, long setupNanos) {
        if (ttlNanos > 0) {
            entries.put(key, new Remembered(module, Math.max(0, setupNanos), System.nanoTime() + ttlNanos));
        }
    }

    /**
     * Remembers {@code module} for {@code key} unless the entry now names another module than
     * {@code startedWith} (null: none): a relay's win must not overwrite a kernel module cached
     * meanwhile by an attempt that outlived an earlier relay's win. An entry dropped meanwhile (the
     * cached module failed) is filled.
     */
    public synchronized void rememberUnlessUpgraded(String key, String startedWith, String module, long setupNanos) {
        String now = choice(key).map(Choice::module).orElse(null);
        if (now == null || now.equals(startedWith)) {
            remember(key, module, setupNanos);
        }
    }

    /** Drops the entry if it still names {@code module}. */
    public synchronized void forget(String key, String module) {
        Remembered e = entries.get(key);
        if (e != null && e.module.equals(module)) {
            entries.remove(key);
        }
    }

    public synchronized int size() {
        return entries.size();
    }
}
