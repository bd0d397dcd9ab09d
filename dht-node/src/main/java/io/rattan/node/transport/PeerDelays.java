package io.rattan.node.transport;

import io.rattan.api.Address;
import java.time.Duration;

/**
 * How long each frame this node sends to a peer waits before it leaves: fault injection (one fixed delay), or a wide
 * area emulated on one machine ({@link WanDelays}). Asked on the node's loop only, once per frame, so an
 * implementation may draw from a random stream of its own without locks.
 */
@FunctionalInterface
public interface PeerDelays {

    /** No delay. The node puts a {@link DelayedTransport} in its path for any other value, and none for this one. */
    PeerDelays NONE = to -> 0;

    /** A bound on a fixed delay: longer than any request timeout, so a larger one is a mistake. */
    Duration FIXED_MAX = Duration.ofMinutes(1);

    /** The delay of the next frame to {@code to}, in nanoseconds, at least 0. */
    long delayNanos(Address to);

    /** Every frame to every peer waits {@code delay} (0..60 s); {@link #NONE} for a zero delay. */
    static PeerDelays fixed(Duration delay) {
        if (delay == null || delay.isNegative() || delay.compareTo(FIXED_MAX) > 0) {
            throw new IllegalArgumentException("a peer send delay must be 0..60 s, got " + delay);
        }
        if (delay.isZero()) {
            return NONE;
        }
        return new FixedDelay(delay.toNanos());
    }
}
