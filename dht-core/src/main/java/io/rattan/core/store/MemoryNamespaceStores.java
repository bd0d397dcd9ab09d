package io.rattan.core.store;

import io.rattan.core.msg.NamespaceDefinition;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongSupplier;

/**
 * Namespaces in memory: the definitions, and each disk namespace's store, kept for as long as this object is (a
 * virtual node keeps it across restarts, as a real node keeps its data directory); a memory namespace's store is new
 * at each {@link #open}. Single-threaded, like the node that uses it.
 */
final class MemoryNamespaceStores implements NamespaceStores {

    private final LongSupplier epochMillis;
    private final List<NamespaceDefinition> saved = new ArrayList<>();
    private final Map<String, MemoryStore> disks = new TreeMap<>();

    MemoryNamespaceStores(LongSupplier epochMillis) {
        this.epochMillis = epochMillis;
    }

    @Override
    public List<NamespaceDefinition> saved() {
        return List.copyOf(saved);
    }

    @Override
    public void save(List<NamespaceDefinition> definitions) {
        saved.clear();
        saved.addAll(definitions);
    }

    @Override
    public Store open(NamespaceDefinition d) {
        return d.inMemory() ? new MemoryStore(epochMillis) : disks.computeIfAbsent(d.name(),
                n -> new MemoryStore(epochMillis));
    }

    @Override
    public void drop(String name) {
        disks.remove(name);
    }
}
