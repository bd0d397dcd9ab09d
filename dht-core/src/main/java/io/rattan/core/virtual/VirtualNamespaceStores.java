package io.rattan.core.virtual;

import io.rattan.core.msg.NamespaceDefinition;
import io.rattan.core.store.MemoryStore;
import io.rattan.core.store.NamespaceStores;
import io.rattan.core.store.Store;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongSupplier;

/**
 * A virtual node's namespaces, kept in its {@link NodeSlot} across restarts as the real node keeps them in its data
 * directory: the definitions, and each disk namespace's store; a memory namespace's store is new at every boot.
 */
final class VirtualNamespaceStores implements NamespaceStores {

    private final LongSupplier epochMillis;
    private final List<NamespaceDefinition> saved = new ArrayList<>();
    private final Map<String, MemoryStore> disks = new TreeMap<>();

    VirtualNamespaceStores(LongSupplier epochMillis) {
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

    /** A crash that lost the disk: nothing of the namespaces is left. */
    void lose() {
        saved.clear();
        disks.clear();
    }
}
