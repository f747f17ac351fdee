package io.traverse;

import java.time.Duration;
import java.util.OptionalLong;

/**
 * A snapshot of one connection: how it was made ({@link ConnectionInfo}) and the bytes the
 * application has read and written so far.
 *
 * <p>Bytes are known only where Traverse moves them itself, that is for connections relayed by
 * hubs ({@code routed}). A connection made by {@code direct}, {@code reverse} or {@code splice} is
 * the JDK's own kernel socket, handed to the application unwrapped so that its data path has no
 * extra copy or call; Traverse never sees its bytes, and reports them as unknown (empty). Count
 * them in the application, or read the kernel's counters ({@code ss -ti}), if you need them.
 *
 * @param info how the connection was made
 * @param bytesIn bytes the application has read, if Traverse can count them
 * @param bytesOut bytes the application has written, if Traverse can count them
 */
public record ConnectionStatistics(ConnectionInfo info, OptionalLong bytesIn, OptionalLong bytesOut) {
    public String module() {
        return info.module();
    }

    public int hubsTraversed() {
        return info.hubsTraversed();
    }

    public Duration setupTime() {
        return info.setupTime();
    }
}
