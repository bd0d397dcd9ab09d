package io.rattan.core.env;

import io.rattan.core.store.Store;
import java.util.random.RandomGenerator;

/** Everything a node reaches the world through, passed in at construction. */
public record NodeEnv(Clock clock, Scheduler scheduler, Transport transport, Store store, RandomGenerator random) {

    public NodeEnv {
        if (clock == null || scheduler == null || transport == null || store == null || random == null) {
            throw new IllegalArgumentException("every door of a node must be given");
        }
    }
}
