package io.traverse.wire;

import io.traverse.identity.NodeId;

/**
 * What a hub holds, in 12 bytes: how many descriptions (its own included) and a hash over their
 * (hub id, state number) pairs. Sent to every hub link each gossip refresh interval instead of
 * re-flooding descriptions (anti-entropy): a neighbour that holds the same set says nothing; one
 * whose summary differs still a moment later answers with a {@link GossipDigest}, and the digest
 * is answered with only the descriptions the other lacks.
 *
 * <p>The hash is the sum, modulo 2<sup>64</sup>, of {@link #entryHash} over the pairs: independent
 * of order, and a hub can add and remove pairs one at a time. Both ends must compute it alike,
 * so it is part of the wire protocol (docs/protocol.md, "Hub descriptions and gossip").
 *
 * @param descriptions descriptions the sender holds of hubs reachable from it, its own included
 * @param hash the sum of {@link #entryHash} over those descriptions' hub ids and state numbers
 */
public record GossipSummary(long descriptions, long hash) implements LinkMessage {
    private static final long FNV_OFFSET = 0xcbf29ce484222325L;
    private static final long FNV_PRIME = 0x100000001b3L;
    private static final long GOLDEN = 0x9e3779b97f4a7c15L;

    public GossipSummary {
        if (descriptions < 0 || descriptions > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("summary of " + descriptions + " descriptions (a u32)");
        }
    }

    /**
     * One (hub id, state number) pair's share of the hash: FNV-1a (64 bit) over the id's ASCII
     * text, plus the state number times 0x9e3779b97f4a7c15, through MurmurHash3's 64-bit finaliser.
     */
    public static long entryHash(NodeId hubId, long stateNumber) {
        long h = FNV_OFFSET;
        String text = hubId.toString();
        for (int i = 0; i < text.length(); i++) {
            h = (h ^ (text.charAt(i) & 0xff)) * FNV_PRIME;
        }
        return mix(h + stateNumber * GOLDEN);
    }

    private static long mix(long k) {
        k ^= k >>> 33;
        k *= 0xff51afd7ed558ccdL;
        k ^= k >>> 33;
        k *= 0xc4ceb9fe1a85ec53L;
        k ^= k >>> 33;
        return k;
    }

    @Override
    public LinkMessageType type() {
        return LinkMessageType.GOSSIP_SUMMARY;
    }
}
