package io.rattan.core.virtual;

import io.rattan.api.Address;
import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.core.env.Cancellable;
import io.rattan.core.id.NodeKey;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import io.rattan.core.net.Contact;
import io.rattan.core.node.ClientRequestValidator;
import io.rattan.core.node.Node;
import io.rattan.core.node.NodeConfig;
import io.rattan.core.node.NodeListener;
import io.rattan.core.store.MemoryStore;
import io.rattan.core.store.Store;
import io.rattan.core.store.StoredRecord;
import io.rattan.core.testing.PlantedBugs;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.function.BooleanSupplier;
import java.util.function.IntFunction;

/**
 * Many unmodified {@link Node}s on one {@link VirtualScheduler} and {@link VirtualNetwork}, all randomness drawn
 * from one seed: the same seed gives the same run, event for event. Nodes join through the protocol like real ones.
 * Single-threaded.
 */
public final class VirtualWorld {

    private static final long SECOND = 1_000_000_000L;

    private final NodeConfig config;
    private final SplittableRandom random;
    private final VirtualScheduler scheduler;
    private final VirtualNetwork network;
    private final NodeSlots slots = new NodeSlots();
    private final NodeBooter booter;

    /** What a crash does to the node's disk. */
    public enum Disk {
        /** The disk survives: the node restarts with everything it had written. */
        KEPT,
        /** The disk is gone: the node restarts (with its id) on an empty store. */
        LOST,
        /** Power loss: the disk keeps what was synced; writes since the last sync are gone. */
        UNSYNCED_LOST
    }

    public VirtualWorld(long seed, NodeConfig config, LatencyModel latency) {
        this(seed, config, latency, NodeListener.NONE);
    }

    public VirtualWorld(long seed, NodeConfig config, LatencyModel latency, NodeListener listener) {
        this.config = config;
        this.random = new SplittableRandom(seed);
        this.scheduler = new VirtualScheduler(1_700_000_000_000L);
        this.network = new VirtualNetwork(scheduler, latency, random.split());
        this.booter = new NodeBooter(config, random, scheduler, network, latency, listener, slots);
    }

    public VirtualScheduler scheduler() {
        return scheduler;
    }

    public VirtualNetwork network() {
        return network;
    }

    public NodeConfig config() {
        return config;
    }

    /** Creates a node and starts it, joining through a random live node (none for the first); returns its index. */
    public int addNode() {
        int index = booter.newSlot();
        booter.boot(slots.get(index));
        return index;
    }

    /**
     * Adds {@code n} nodes one after another, each joined before the next starts; throws if one does not join
     * within ten minutes of virtual time.
     */
    public void addNodes(int n) {
        for (int i = 0; i < n; i++) {
            int index = addNode();
            Node node = slots.get(index).node;
            // Generous: on a world with slow periods, a join may have to retry past several slow nodes.
            if (!scheduler.runUntil(node::isJoined, scheduler.nanoTime() + 600 * SECOND)) {
                throw new IllegalStateException("node " + index + " did not join within 600 s of virtual time");
            }
        }
    }

    /**
     * Adds {@code n} nodes in waves that join at the same time, as a crowd of new nodes would: each node of a wave
     * joins through up to three random nodes that had joined before the wave started, and the world runs until every
     * node of the wave has joined (or all but one in a thousand) before the next wave starts. A wave is at most as
     * large as the overlay it joins (so the overlay at most doubles per wave) and at most {@code maxWave}. Sequential
     * joins cost a full join's virtual time per node with everyone's maintenance running, which makes large worlds
     * unaffordable; waves cost O(log n) join times. A wave waits at most two minutes of virtual time; a node not
     * joined when its wave ends (its root or bootstraps are very slow) goes on trying while the next wave starts.
     *
     * @return how many nodes had not joined when their wave ended
     */
    public int addNodesInWaves(int n, int maxWave) {
        return addNodesInWaves(n, maxWave, (size, virtualNanos, lateInWave) -> { });
    }

    /** What one wave of {@link #addNodesInWaves(int, int, WaveListener)} did, for progress reports. */
    @FunctionalInterface
    public interface WaveListener {
        /**
         * @param size         nodes in the wave
         * @param virtualNanos virtual time the wave took
         * @param lateInWave   nodes of the wave not joined when it ended
         */
        void waveEnded(int size, long virtualNanos, int lateInWave);
    }

    /** As {@link #addNodesInWaves(int, int)}, telling {@code listener} about each wave as it ends. */
    public int addNodesInWaves(int n, int maxWave, WaveListener listener) {
        return new JoinWaves(this, slots, booter, random).add(n, maxWave, listener);
    }

    /**
     * Creates a node and starts its join through up to three random {@linkplain #servingIndexes() serving} nodes,
     * without running the scheduler, so that an event may call it; returns its index. The node joins through the
     * protocol as the world runs on.
     *
     * @throws IllegalStateException when the world has nodes but none serving to join through
     */
    public int startNode() {
        int[] serving = slots.joinedIndexes();
        if (serving.length == 0 && !slots.isEmpty()) {
            throw new IllegalStateException("no joined node to join through");
        }
        int index = booter.newSlot();
        booter.boot(slots.get(index), slots.randomDistinct(serving, 3, random));
        return index;
    }

    /**
     * Creates a node whose bootstrap names are not resolved yet: it neither joins nor founds an overlay until given
     * addresses ({@link Node#bootstrapResolved}, through {@link #node}); returns its index.
     */
    public int startNodeAwaitingBootstrap() {
        int index = booter.newSlot();
        booter.boot(slots.get(index), List.of(), true);
        return index;
    }

    /**
     * The nodes a client or a joining node can use: alive, joined and not leaving, in index order.
     */
    public List<Integer> servingIndexes() {
        List<Integer> out = new ArrayList<>();
        for (int i : slots.joinedIndexes()) {
            out.add(i);
        }
        return out;
    }

    /** Abrupt death: the node stops and its address goes dark; it sends nothing more. */
    public void kill(int index) {
        NodeSlot slot = slots.get(index);
        slot.node.stop();
        if (slot.syncing != null) {
            slot.syncing.stop();
        }
        if (slot.queued != null) {
            slot.queued.stop();
        }
        network.unlisten(slot.contact.address());
        slot.alive = false;
    }

    /**
     * Where the nodes added from now on listen: node {@code i} at host {@code hostOf.apply(i)}, a name that ends in
     * {@code i} ({@link VirtualAddresses#at}); {@code node<i>} unless told. Draws nothing from the world's random source.
     */
    public void hosts(IntFunction<String> hostOf) {
        booter.hosts(hostOf);
    }

    /**
     * Makes every node's store work ({@link Store#submit}) run on a store thread with a queue, as a real node's does:
     * one task at a time, each {@code taskNanos} of virtual time, at most {@code queueMax} waiting behind the one
     * running (more fail at once as "store busy"); before any node is added, instead of {@link #deferStoreWork}.
     * Draws nothing from the world's random source.
     */
    public void queueStoreWork(long taskNanos, int queueMax) {
        if (!slots.isEmpty()) {
            throw new IllegalStateException("store work must be queued before the first node is added");
        }
        if (taskNanos < 1 || queueMax < 1) {
            throw new IllegalArgumentException("taskNanos and queueMax must be positive, got " + taskNanos + " and "
                    + queueMax);
        }
        booter.queueStoreWork(taskNanos, queueMax);
    }

    /**
     * Makes every node's store work ({@link Store#submit}: writes, scans, batch reads) run {@code delayNanos} of
     * virtual time after it is submitted, as a real node's store thread does, instead of at once; before any node is
     * added. Draws nothing from the world's random source.
     */
    public void deferStoreWork(long delayNanos) {
        if (!slots.isEmpty()) {
            throw new IllegalStateException("store work must be deferred before the first node is added");
        }
        if (delayNanos < 0) {
            throw new IllegalArgumentException("delayNanos must be >= 0, got " + delayNanos);
        }
        booter.deferStoreWork(delayNanos);
    }

    /**
     * Turns on the faults a world can suffer, before any node is added: every node gets its own clock (its
     * {@linkplain #clockOffsetMillis(int, long) offset} from the true time starts at 0) and a disk that can fill up
     * and lose unsynced writes, synced every {@code syncIntervalMillis} of virtual time; the nodes carry
     * {@code plantedBugs}. A task of a node that throws is counted ({@link #escapedExceptions}), as a real node's event
     * loop logs it and goes on. Draws nothing from the world's random source, so a world with faults on and none
     * injected runs as one without.
     */
    public void enableFaults(long syncIntervalMillis, PlantedBugs plantedBugs) {
        enableFaults(syncIntervalMillis, false, plantedBugs);
    }

    /**
     * As {@link #enableFaults(long, PlantedBugs)}, and with {@code fsync} the nodes run as with {@code --fsync}: a
     * write is acknowledged only once a sync that began after it has returned (a group commit, {@link SyncingStore}),
     * so a power loss keeps it.
     */
    public void enableFaults(long syncIntervalMillis, boolean fsync, PlantedBugs plantedBugs) {
        if (!slots.isEmpty()) {
            throw new IllegalStateException("faults must be enabled before the first node is added");
        }
        if (syncIntervalMillis < 1) {
            throw new IllegalArgumentException("syncIntervalMillis must be positive, got " + syncIntervalMillis);
        }
        booter.enableFaults(syncIntervalMillis * 1_000_000L, fsync, plantedBugs);
    }

    /**
     * Crashes node {@code index} as {@link #kill} does, and does {@code disk} to its store; {@link #restart} brings
     * it back on what is left. A disk other than {@link Disk#KEPT} needs {@link #enableFaults}.
     */
    public void crash(int index, Disk disk) {
        NodeSlot slot = slots.get(index);
        kill(index);
        if (disk == Disk.KEPT) {
            return;
        }
        if (!booter.faultsOn()) {
            throw new IllegalStateException("disk faults need enableFaults");
        }
        booter.loseDisk(slot, disk);
    }

    /** Steps node {@code index}'s wall clock to {@code offsetMillis} from the true time (needs faults). */
    public void clockOffsetMillis(int index, long offsetMillis) {
        faultySlot(index).clock.offsetMillis(offsetMillis);
    }

    /** Node {@code index}'s expiry clock minus the true time, in ms: how far off it judges expiry; 0 without faults. */
    public long expiryClockErrorMillis(int index) {
        NodeSlot slot = slots.get(index);
        return slot.clock == null ? 0 : slot.expiryMillis() - scheduler.epochMillis();
    }

    /** How far node {@code index}'s wall clock is from the true time; 0 without faults. */
    public long clockOffsetMillis(int index) {
        NodeSlot slot = slots.get(index);
        return slot.clock == null ? 0 : slot.clock.offsetMillis();
    }

    /** Fills node {@code index}'s disk (every write throws) or frees it (needs faults). */
    public void diskFull(int index, boolean full) {
        faultySlot(index).faulty.full(full);
    }

    /** Writes refused by full disks so far, over every node's current disk. */
    public long writesRefused() {
        long n = booter.refusedOnLostDisks();
        for (NodeSlot s : slots.all()) {
            n += s.faulty == null ? 0 : s.faulty.refused();
        }
        return n;
    }

    /** Exceptions thrown out of nodes' tasks so far (with faults on; without, they end the run). */
    public long escapedExceptions() {
        return booter.escapedExceptions();
    }

    private NodeSlot faultySlot(int index) {
        NodeSlot slot = slots.get(index);
        if (slot.faulty == null) {
            throw new IllegalStateException("faults are not enabled");
        }
        return slot;
    }

    /** Graceful leave, running the world until it is done: {@link #startLeave}. */
    public void leave(int index) {
        boolean[] gone = {false};
        startLeave(index, () -> gone[0] = true);
        scheduler.runUntil(() -> gone[0], scheduler.nanoTime() + 31 * SECOND);
    }

    /**
     * Starts a graceful leave without running the scheduler, so that an event may call it. The node hands its records
     * off ({@link Node#leave}); once it has, or after 30 s of virtual time as {@link #leave} waits, it stops, its
     * address goes dark and {@code gone} runs. From the call on the node is not {@linkplain #servingIndexes()
     * serving}; it stays {@linkplain #isAlive alive} until it is gone.
     *
     * @throws IllegalStateException when the node is dead or already leaving
     */
    public void startLeave(int index, Runnable gone) {
        NodeSlot slot = slots.get(index);
        if (!slot.alive || slot.leaving) {
            throw new IllegalStateException("node " + index + (slot.alive ? " is already leaving" : " is dead"));
        }
        slot.leaving = true;
        Node node = slot.node;
        boolean[] finished = {false};
        Runnable finish = () -> {
            // Done already, or the node was killed and restarted meanwhile: the slot is someone else's now.
            if (finished[0] || slot.node != node) {
                return;
            }
            finished[0] = true;
            // A hand-off that timed out must not leave a node sending from a dark address.
            node.stop();
            if (slot.alive) {
                network.unlisten(slot.contact.address());
                slot.alive = false;
            }
            gone.run();
        };
        Cancellable deadline = scheduler.schedule(30 * SECOND, finish);
        node.leave(() -> {
            deadline.cancel();
            finish.run();
        });
    }

    /** Starts a dead node again with its id and store, joining through a live node. */
    public void restart(int index) {
        NodeSlot slot = slots.get(index);
        if (slot.alive) {
            throw new IllegalStateException("node " + index + " is alive");
        }
        booter.boot(slot);
    }

    /**
     * Starts a dead node again with its id and store, as {@link #restart} does, but listening on another port of its
     * host, as a real node restarted on port 0 does: its neighbours still hold its old address. Draws from the world's
     * random source only as {@link #restart} does.
     */
    public void restartOnNewPort(int index) {
        NodeSlot slot = slots.get(index);
        if (slot.alive) {
            throw new IllegalStateException("node " + index + " is alive");
        }
        Address old = slot.contact.address();
        // The host names the node's index, so no other node listens on any of its ports.
        slot.contact = new Contact(slot.contact.id(), new Address(old.host(), old.port() % 65_535 + 1));
        booter.boot(slot);
    }

    /** Sends a client request to node {@code index} as gateway and runs the world until it is answered. */
    public Message request(int index, Message clientRequest) {
        // This world's gateway edge: a request outside the node's limits is answered before the node sees it.
        Optional<ErrorReply> refused = ClientRequestValidator.check(clientRequest, config);
        if (refused.isPresent()) {
            return refused.get();
        }
        Message[] reply = new Message[1];
        Node node = slots.get(index).node;
        scheduler.execute(() -> node.handleClient(clientRequest, m -> reply[0] = m));
        long deadline = scheduler.nanoTime() + 2 * config.requestTimeoutMillis() * 1_000_000L + SECOND;
        if (!scheduler.runUntil(() -> reply[0] != null, deadline)) {
            throw new IllegalStateException("node " + index + " never answered " + clientRequest.type());
        }
        return reply[0];
    }

    /** Runs the world until {@code condition} holds, at most {@code maxNanos} of virtual time. */
    public boolean runUntil(BooleanSupplier condition, long maxNanos) {
        return scheduler.runUntil(condition, scheduler.nanoTime() + maxNanos);
    }

    public void runFor(long nanos) {
        scheduler.runFor(nanos);
    }

    public int size() {
        return slots.size();
    }

    public Node node(int index) {
        return slots.get(index).node;
    }

    public MemoryStore store(int index) {
        return slots.get(index).store;
    }

    /**
     * What a power loss now would leave on node {@code index}'s disk of the record of {@code valueHash} under
     * {@code key}: its synced state (needs {@link #enableFaults}).
     */
    public Optional<StoredRecord> durableRecord(int index, Id key, Bytes valueHash) {
        return faultySlot(index).faulty.durableRead(key, valueHash);
    }

    public Contact contact(int index) {
        return slots.get(index).contact;
    }

    /** Node {@code index}'s key, whose hash its id is: drawn from the world's seed, so the same in every run. */
    public NodeKey key(int index) {
        return slots.get(index).key;
    }

    public boolean isAlive(int index) {
        return slots.get(index).alive;
    }

    public List<Integer> liveIndexes() {
        return slots.liveIndexes();
    }

    /** The world's random source, for tests and experiments that draw from the same seed. */
    public SplittableRandom random() {
        return random;
    }
}
