package io.rattan.core.env;

import io.rattan.core.store.NamespaceStores;
import io.rattan.core.store.Store;
import java.util.random.RandomGenerator;

/**
 * Everything a node reaches the world through, passed in at construction.
 *
 * @param store      the default namespace's store
 * @param random     every random choice the node makes
 * @param requestIds how its request ids are drawn from {@code random}
 * @param namespaces the other namespaces' stores and the definitions the node keeps
 */
public record NodeEnv(Clock clock, Scheduler scheduler, Transport transport, Store store, RandomGenerator random,
                      RequestIds requestIds, NamespaceStores namespaces) {

    /** A node that draws each request id from {@code random} ({@link RequestIds#FROM_NODE_RANDOM}). */
    public NodeEnv(Clock clock, Scheduler scheduler, Transport transport, Store store, RandomGenerator random) {
        this(clock, scheduler, transport, store, random, RequestIds.FROM_NODE_RANDOM);
    }

    /** A node whose other namespaces live in memory ({@link NamespaceStores#inMemory}). */
    public NodeEnv(Clock clock, Scheduler scheduler, Transport transport, Store store, RandomGenerator random,
                   RequestIds requestIds) {
        this(clock, scheduler, transport, store, random, requestIds,
                clock == null ? null : NamespaceStores.inMemory(clock::epochMillis));
    }

    public NodeEnv {
        if (clock == null || scheduler == null || transport == null || store == null || random == null
                || requestIds == null || namespaces == null) {
            throw new IllegalArgumentException("every door of a node must be given");
        }
    }
}
