package io.rattan.core.env;

import io.rattan.core.id.NodeKey;
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
 * @param key        the node's key pair, whose id is the node's: it signs the puts this node is the gateway of
 */
public record NodeEnv(Clock clock, Scheduler scheduler, Transport transport, Store store, RandomGenerator random,
                      RequestIds requestIds, NamespaceStores namespaces, NodeKey key) {

    public NodeEnv {
        if (clock == null || scheduler == null || transport == null || store == null || random == null
                || requestIds == null || namespaces == null || key == null) {
            throw new IllegalArgumentException("every door of a node must be given");
        }
    }
}
