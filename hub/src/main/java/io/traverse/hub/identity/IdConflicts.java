package io.traverse.hub.identity;

import io.traverse.identity.NodeId;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Hubs found sharing an id, for the status: mostly another hub with this hub's id, also two
 * other hubs with one id that both linked here. One entry per hub and way it was seen, with
 * when and how often. At most {@link #MAX_ENTRIES}, the least recently seen
 * going first. Not thread-safe: the hub's state loop owns it.
 */
public final class IdConflicts {
    /** Enough to name every culprit of a real mistake; a flood of them must not grow the status without bound. */
    public static final int MAX_ENTRIES = 32;

    /** How the other hub was seen. */
    public enum Seen {
        /** It dialled this hub, which refused its link. */
        DIALLED_US,
        /** This hub dialled it, and it refused the link. */
        WE_DIALLED,
        /** Its description reached this hub by gossip. */
        GOSSIP,
        /** This hub dialled a third hub, which refused the link: a hub with this hub's id is linked there. */
        REPORTED,
        /** Two other hubs with one id linked here: the second was refused. */
        BOTH_LINKED_HERE
    }

    /**
     * One hub with another's id.
     *
     * @param hubId the id two hubs have
     * @param otherName its name, when known (from its HELLO or description)
     * @param otherAddress where it linked from, or the address this hub dialled; null for gossip
     * @param otherAdvertised the addresses it advertises, when known
     * @param detail what was seen, in words (a refusal's reason, the hub a description came through)
     */
    public record Conflict(
            NodeId hubId,
            Seen seen,
            String otherName,
            String otherAddress,
            List<String> otherAdvertised,
            String detail,
            long firstSeenMillis,
            long lastSeenMillis,
            long times) {}

    private record Key(NodeId hubId, Seen seen, String otherName, String otherAddress) {}

    private final Map<Key, Conflict> entries = new LinkedHashMap<>();

    /**
     * Records a sighting.
     *
     * @return true the first time this other hub is seen this way (worth a warning), false for a repeat
     */
    public boolean record(
            NodeId hubId,
            Seen seen,
            String otherName,
            String otherAddress,
            List<String> otherAdvertised,
            String detail,
            long nowMillis) {
        Key key = new Key(hubId, seen, otherName, seen == Seen.GOSSIP ? null : hostOf(otherAddress));
        Conflict previous = entries.remove(key);
        List<String> advertised = otherAdvertised == null ? List.of() : List.copyOf(otherAdvertised);
        if (previous != null) {
            entries.put(
                    key,
                    new Conflict(
                            hubId,
                            seen,
                            otherName,
                            otherAddress,
                            advertised,
                            detail,
                            previous.firstSeenMillis(),
                            nowMillis,
                            previous.times() + 1));
            return false;
        }
        if (entries.size() >= MAX_ENTRIES) {
            entries.remove(entries.keySet().iterator().next());
        }
        entries.put(
                key, new Conflict(hubId, seen, otherName, otherAddress, advertised, detail, nowMillis, nowMillis, 1));
        return true;
    }

    /** Every entry, most recently seen first. */
    public List<Conflict> list() {
        List<Conflict> out = new ArrayList<>(entries.values());
        out.sort(Comparator.comparingLong(Conflict::lastSeenMillis).reversed());
        return out;
    }

    public boolean isEmpty() {
        return entries.isEmpty();
    }

    /** A hub that dials again does so from a new source port: one entry per host, not per connection. */
    private static String hostOf(String address) {
        if (address == null) {
            return null;
        }
        int colon = address.lastIndexOf(':');
        return colon > 0 && address.indexOf(':') == colon || address.startsWith("[") && colon > address.indexOf(']')
                ? address.substring(0, colon)
                : Objects.toString(address);
    }
}
