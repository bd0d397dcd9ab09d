package io.rattan.core.env;

import io.rattan.core.store.Store;
import java.util.random.RandomGenerator;

/**
 * Everything a node reaches the world through, passed in at construction.
 *
 * @param random     every random choice the node makes
 * @param requestIds how its request ids are drawn from {@code random}
 */
public record NodeEnv(Clock clock, Scheduler scheduler, Transport transport, Store store, RandomGenerator random,
                      RequestIds requestIds) {

    /** A node that draws each request id from {@code random} ({@link RequestIds#FROM_NODE_RANDOM}). */
    public NodeEnv(Clock clock, Scheduler scheduler, Transport transport, Store store, RandomGenerator random) {
        this(clock, scheduler, transport, store, random, RequestIds.FROM_NODE_RANDOM);
    }

    public NodeEnv {
        if (clock == null || scheduler == null || transport == null || store == null || random == null
                || requestIds == null) {
            throw new IllegalArgumentException("every door of a node must be given");
        }
    }
}
