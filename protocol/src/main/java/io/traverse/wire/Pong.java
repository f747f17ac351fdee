package io.traverse.wire;

/** Answer to {@link Ping}, echoing its token. */
public record Pong(long token) implements LinkMessage {
    @Override
    public LinkMessageType type() {
        return LinkMessageType.PONG;
    }
}
