package io.rattan.core.virtual;

import io.rattan.api.Address;
import io.rattan.core.env.Clock;
import io.rattan.core.env.ExpiryClock;
import io.rattan.core.env.NodeEnv;
import io.rattan.core.env.RequestIds;
import io.rattan.core.id.NodeKey;
import io.rattan.core.net.Contact;
import io.rattan.core.node.Node;
import io.rattan.core.node.NodeConfig;
import io.rattan.core.node.NodeListener;
import io.rattan.core.store.MemoryStore;
import io.rattan.core.store.NamespaceStores;
import io.rattan.core.store.Store;
import io.rattan.core.testing.PlantedBugs;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.IntFunction;

/**
 * Makes a {@link VirtualWorld}'s node slots and boots nodes on them: each slot's disk and clock, each boot's event
 * loop, environment and {@link Node}, and the disk a crash leaves, as the world's fault settings say. Everything it
 * draws comes from the world's random source. Single-threaded, like the world.
 */
final class NodeBooter {

    private final NodeConfig config;
    private final SplittableRandom random;
    private final VirtualScheduler scheduler;
    private final VirtualNetwork network;
    private final LatencyModel latency;
    private final NodeListener listener;
    private final NodeSlots slots;
    // Faults (enableFaults): off, the world builds its nodes exactly as it always has.
    private boolean faultsOn;
    private long syncIntervalNanos;
    private boolean fsync;
    private PlantedBugs bugs = PlantedBugs.NONE;
    private IntFunction<String> hosts = i -> "node" + i;
    private long escapedExceptions;
    private long refusedOnLostDisks;
    // 0: store work runs where it is submitted (deferStoreWork).
    private long storeDelayNanos;
    // 0: no store thread with a queue (queueStoreWork).
    private long storeTaskNanos;
    private int storeQueueMax;

    NodeBooter(NodeConfig config, SplittableRandom random, VirtualScheduler scheduler, VirtualNetwork network,
               LatencyModel latency, NodeListener listener, NodeSlots slots) {
        this.config = config;
        this.random = random;
        this.scheduler = scheduler;
        this.network = network;
        this.latency = latency;
        this.listener = listener;
        this.slots = slots;
    }

    /** See {@link VirtualWorld#hosts}. */
    void hosts(IntFunction<String> hostOf) {
        hosts = hostOf;
    }

    /** See {@link VirtualWorld#enableFaults}; checked there. */
    void enableFaults(long syncIntervalNanos, boolean fsyncOn, PlantedBugs plantedBugs) {
        faultsOn = true;
        this.syncIntervalNanos = syncIntervalNanos;
        this.fsync = fsyncOn;
        bugs = plantedBugs;
    }

    /** See {@link VirtualWorld#deferStoreWork}; checked there. */
    void deferStoreWork(long delayNanos) {
        if (storeTaskNanos > 0) {
            throw new IllegalStateException("store work is queued already: queue it or defer it, not both");
        }
        storeDelayNanos = delayNanos;
    }

    /** See {@link VirtualWorld#queueStoreWork}; checked there. */
    void queueStoreWork(long taskNanos, int queueMax) {
        if (storeDelayNanos > 0) {
            throw new IllegalStateException("store work is deferred already: queue it or defer it, not both");
        }
        storeTaskNanos = taskNanos;
        storeQueueMax = queueMax;
    }

    boolean faultsOn() {
        return faultsOn;
    }

    long escapedExceptions() {
        return escapedExceptions;
    }

    /** Writes refused by disks that crashes have since replaced. */
    long refusedOnLostDisks() {
        return refusedOnLostDisks;
    }

    /** Makes the next slot, with a new id and, with faults on, its own clock and a disk that can fail. */
    int newSlot() {
        int index = slots.size();
        NodeKey key = NodeKey.draw(random);
        Contact contact = new Contact(key.id(), VirtualAddresses.at(hosts.apply(index), index));
        if (!faultsOn) {
            NodeSlot slot = new NodeSlot(key, contact, new MemoryStore(scheduler::epochMillis));
            slot.namespaces = NamespaceStores.inMemory(scheduler::epochMillis);
            slots.add(slot);
            return index;
        }
        NodeClock clock = new NodeClock(scheduler);
        NodeSlot slot = new NodeSlot(key, contact, null);
        slot.store = new MemoryStore(slot::expiryMillis);
        slot.namespaces = NamespaceStores.inMemory(slot::expiryMillis);
        slot.clock = clock;
        slot.faulty = new FaultyStore(slot.store, scheduler, syncIntervalNanos);
        slots.add(slot);
        return index;
    }

    /** Boots a node on {@code slot}, joining through up to three random live nodes. */
    void boot(NodeSlot slot) {
        // Up to three random live nodes: a join retries through the next when one does not answer.
        List<Address> bootstrap = new ArrayList<>();
        List<Integer> live = slots.liveIndexes();
        for (int i = 0; i < 3 && !live.isEmpty(); i++) {
            bootstrap.add(slots.get(live.remove(random.nextInt(live.size()))).contact.address());
        }
        boot(slot, bootstrap);
    }

    /** Boots a node on {@code slot}, a new process on its disk, joining through {@code bootstrap}. */
    void boot(NodeSlot slot, List<Address> bootstrap) {
        boot(slot, bootstrap, false);
    }

    /** As {@link #boot(NodeSlot, List)}; {@code moreToCome}: see {@link Node#start(List, boolean)}. */
    void boot(NodeSlot slot, List<Address> bootstrap, boolean moreToCome) {
        Store store = faultsOn ? slot.faulty : slot.store;
        NodeLoop loop = faultsOn ? new NodeLoop(scheduler, latency, slot.contact.address(), e -> escapedExceptions++)
                : new NodeLoop(scheduler, latency, slot.contact.address());
        slot.syncing = null;
        slot.queued = null;
        if (faultsOn && fsync && !bugs.has(PlantedBugs.Bug.DURABLE_BEFORE_SYNC)) {
            slot.syncing = new SyncingStore(slot.faulty, loop);
            store = slot.syncing;
        }
        if (storeDelayNanos > 0) {
            store = new DeferredStore(store, loop, storeDelayNanos);
        } else if (storeTaskNanos > 0) {
            slot.queued = new QueuedStore(store, loop, scheduler, storeTaskNanos, storeQueueMax);
            store = slot.queued;
        }
        Clock clock = scheduler;
        if (faultsOn) {
            slot.expiry = new ExpiryClock(slot.clock, ExpiryClock.SKEW_BOUND_MILLIS,
                    bugs.has(PlantedBugs.Bug.CLOCK_THREE_HOSTS));
            slot.expiry.attach(store);
            clock = slot.expiry;
        }
        NodeEnv env = new NodeEnv(clock, loop, network.transportFor(slot.contact.address()), store, random.split(),
                RequestIds.OWN_STREAM, slot.namespaces, slot.key);
        Node node = new Node(config, slot.contact, env, listener, bugs);
        slot.node = node;
        slot.alive = true;
        slot.leaving = false;
        network.listen(slot.contact.address(), node::receive);
        node.start(bootstrap, moreToCome);
    }

    /**
     * What a crash does to {@code slot}'s disk, other than {@link VirtualWorld.Disk#KEPT}: an empty one, or what was
     * synced before the power went; full if the old one was.
     */
    void loseDisk(NodeSlot slot, VirtualWorld.Disk disk) {
        boolean full = slot.faulty.isFull();
        refusedOnLostDisks += slot.faulty.refused();
        if (disk == VirtualWorld.Disk.LOST) {
            slot.namespaces = NamespaceStores.inMemory(slot::expiryMillis);
        }
        slot.store = disk == VirtualWorld.Disk.LOST ? new MemoryStore(slot::expiryMillis)
                : slot.faulty.afterPowerLoss(slot::expiryMillis);
        slot.faulty = new FaultyStore(slot.store, scheduler, syncIntervalNanos);
        slot.faulty.full(full);
    }
}
