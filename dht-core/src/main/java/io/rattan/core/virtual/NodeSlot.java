package io.rattan.core.virtual;

import io.rattan.core.env.ExpiryClock;
import io.rattan.core.id.NodeKey;
import io.rattan.core.net.Contact;
import io.rattan.core.node.Node;
import io.rattan.core.store.NamespaceStores;
import io.rattan.core.store.MemoryStore;

/**
 * One node's place in a {@link VirtualWorld}, kept across its crashes and restarts: its contact, its disk, its clocks
 * and the node running on them now. Single-threaded, like the world.
 */
final class NodeSlot {
    // Its id is for life; its port changes when it restarts on a new one (restartOnNewPort).
    Contact contact;
    MemoryStore store;
    // With faults only: the node's own clock and the disk wrapper it writes through.
    NodeClock clock;
    // The node's expiry clock over its wall clock, new at each boot (a new process).
    ExpiryClock expiry;
    FaultyStore faulty;
    // With --fsync only: this boot's syncer over the disk, stopped when the node dies.
    SyncingStore syncing;
    // With queued store work only: this boot's store thread, stopped when the node dies.
    QueuedStore queued;
    // Its namespaces' definitions and disk stores, kept across restarts.
    NamespaceStores namespaces;
    Node node;
    boolean alive;
    // Handing off before going dark: alive, but no longer a node to join through or send clients to.
    boolean leaving;

    // The key its id is the hash of, drawn from the world's seed as a real node draws its own.
    final NodeKey key;

    NodeSlot(NodeKey key, Contact contact, MemoryStore store) {
        this.key = key;
        this.contact = contact;
        this.store = store;
    }

    long expiryMillis() {
        return expiry == null ? clock.epochMillis() : expiry.epochMillis();
    }
}
