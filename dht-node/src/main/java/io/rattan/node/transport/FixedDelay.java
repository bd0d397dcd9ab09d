package io.rattan.node.transport;

import io.rattan.api.Address;
import java.util.Locale;

/** The same delay for every frame to every peer: {@link PeerDelays#fixed}. */
record FixedDelay(long nanos) implements PeerDelays {

    @Override
    public long delayNanos(Address to) {
        return nanos;
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "every frame %.3f ms", nanos / 1e6);
    }
}
