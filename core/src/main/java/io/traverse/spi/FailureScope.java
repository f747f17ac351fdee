package io.traverse.spi;

import java.io.IOException;

/** How much a failed attempt rules out: the racers use it to decide whether to try anything else. */
public enum FailureScope {
    /** Only this address or path failed; other addresses and other modules may work. */
    PATH,
    /** This module cannot reach the target (no addresses, no hub, protocol mismatch); other modules may. */
    MODULE,
    /** The target itself answered (no such port, overloaded): no other way will give a different answer. */
    TARGET;

    public static FailureScope of(IOException failure) {
        return failure instanceof AttemptFailedException e ? e.scope() : PATH;
    }

    public boolean isWiderThan(FailureScope other) {
        return ordinal() > other.ordinal();
    }
}
