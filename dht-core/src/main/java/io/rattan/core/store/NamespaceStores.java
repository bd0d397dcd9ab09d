package io.rattan.core.store;

import io.rattan.core.msg.NamespaceDefinition;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Where a node keeps its namespaces: each namespace's own {@link Store} (the default namespace's is the node's
 * store), and the definitions it knows, kept across restarts where the node has a disk. Called on the node's loop.
 */
public interface NamespaceStores {

    /** The definitions saved here (retired ones included), in the order saved; empty on a first start. */
    List<NamespaceDefinition> saved();

    /** Saves every definition the node knows, replacing what was saved. */
    void save(List<NamespaceDefinition> definitions);

    /** Opens (creating if need be) the store of {@code definition}: in memory or on disk as it says. */
    Store open(NamespaceDefinition definition);

    /** Closes the store of the retired namespace {@code name}, if open, and deletes what it held. */
    void drop(String name);

    /** Every namespace in memory, definitions too ({@link MemoryNamespaceStores}): tests' and the virtual world's. */
    static NamespaceStores inMemory(LongSupplier epochMillis) {
        return new MemoryNamespaceStores(epochMillis);
    }
}
