package io.traverse.wire;

/** Keepalive; the other end answers {@link Pong} with the same token (used to measure RTT). */
public record Ping(long token) implements LinkMessage {
    @Override
    public LinkMessageType type() {
        return LinkMessageType.PING;
    }
}
