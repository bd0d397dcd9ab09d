package io.rattan.core.virtual;

import io.rattan.api.Address;
import java.util.random.RandomGenerator;

/** One-way delay of a message between two virtual addresses; may draw jitter from the world's random source. */
@FunctionalInterface
public interface LatencyModel {

    long delayNanos(Address from, Address to, RandomGenerator random);

    /** Whether this message is lost; asked before {@link #delayNanos}, which is not asked for a lost message. */
    default boolean drops(Address from, Address to, RandomGenerator random) {
        return false;
    }

    /**
     * When node {@code node}'s event loop can run a timer that falls due at {@code nowNanos}: a model whose nodes
     * serve messages one at a time answers the end of the messages that arrived by then and are still being served
     * or waiting, because a real node's timers run on the same loop as its message handling. By default, at once.
     */
    default long readyAtNanos(Address node, long nowNanos) {
        return nowNanos;
    }

    /** The same delay for every message. */
    static LatencyModel constant(long nanos) {
        return (from, to, random) -> nanos;
    }
}
