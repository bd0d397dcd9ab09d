package io.rattan.core.virtual;

import io.rattan.core.env.Cancellable;
import io.rattan.core.env.Clock;
import io.rattan.core.env.ExpiryClock;
import io.rattan.core.env.NodeEnv;
import io.rattan.core.env.RequestIds;
import io.rattan.core.id.Id;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.Messages.ErrorReply;
import io.rattan.core.net.Address;
import io.rattan.core.net.Contact;
import io.rattan.core.node.ClientRequestValidator;
import io.rattan.core.node.Node;
import io.rattan.core.node.NodeConfig;
import io.rattan.core.node.NodeListener;
import io.rattan.core.store.MemoryStore;
import io.rattan.core.store.Store;
import io.rattan.core.testing.PlantedBugs;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.function.BooleanSupplier;

/**
 * Many unmodified {@link Node}s on one {@link VirtualScheduler} and {@link VirtualNetwork}, all randomness drawn
 * from one seed: the same seed gives the same run, event for event. Nodes join through the protocol like real ones.
 * Single-threaded.
 */
public final class VirtualWorld {

    private static final long SECOND = 1_000_000_000L;
    private static final long WAVE_MAX_NANOS = 120 * SECOND;
    /** How often a wave that has not fully joined counts its joined nodes. */
    private static final long WAVE_CHECK_NANOS = SECOND / 4;

    private final NodeConfig config;
    private final SplittableRandom random;
    private final VirtualScheduler scheduler;
    private final VirtualNetwork network;
    private final LatencyModel latency;
    private final List<Slot> slots = new ArrayList<>();
    private final NodeListener listener;
    // Faults (enableFaults): off, the world builds its nodes exactly as it always has.
    private boolean faultsOn;
    private long syncIntervalNanos;
    private PlantedBugs bugs = PlantedBugs.NONE;
    private long escapedExceptions;
    private long refusedOnLostDisks;
    // 0: store work runs where it is submitted (deferStoreWork).
    private long storeDelayNanos;

    /** What a crash does to the node's disk. */
    public enum Disk {
        /** The disk survives: the node restarts with everything it had written. */
        KEPT,
        /** The disk is gone: the node restarts (with its id) on an empty store. */
        LOST,
        /** Power loss: the disk keeps what was synced; writes since the last sync are gone. */
        UNSYNCED_LOST
    }

    private static final class Slot {
        // Its id is for life; its port changes when it restarts on a new one (restartOnNewPort).
        Contact contact;
        MemoryStore store;
        // With faults only: the node's own clock and the disk wrapper it writes through.
        NodeClock clock;
        // The node's expiry clock over its wall clock, new at each boot (a new process).
        ExpiryClock expiry;
        FaultyStore faulty;
        Node node;
        boolean alive;
        // Handing off before going dark: alive, but no longer a node to join through or send clients to.
        boolean leaving;

        Slot(Contact contact, MemoryStore store) {
            this.contact = contact;
            this.store = store;
        }

        long expiryMillis() {
            return expiry == null ? clock.epochMillis() : expiry.epochMillis();
        }
    }

    public VirtualWorld(long seed, NodeConfig config, LatencyModel latency) {
        this(seed, config, latency, NodeListener.NONE);
    }

    public VirtualWorld(long seed, NodeConfig config, LatencyModel latency, NodeListener listener) {
        this.config = config;
        this.random = new SplittableRandom(seed);
        this.scheduler = new VirtualScheduler(1_700_000_000_000L);
        this.network = new VirtualNetwork(scheduler, latency, random.split());
        this.latency = latency;
        this.listener = listener;
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
        int index = newSlot();
        boot(slots.get(index));
        return index;
    }

    private int newSlot() {
        int index = slots.size();
        Contact contact = new Contact(Id.random(random), VirtualAddresses.of("node", index));
        if (!faultsOn) {
            slots.add(new Slot(contact, new MemoryStore(scheduler::epochMillis)));
            return index;
        }
        NodeClock clock = new NodeClock(scheduler);
        Slot slot = new Slot(contact, null);
        slot.store = new MemoryStore(slot::expiryMillis);
        slot.clock = clock;
        slot.faulty = new FaultyStore(slot.store, scheduler, syncIntervalNanos);
        slots.add(slot);
        return index;
    }

    private void boot(Slot slot) {
        // Up to three random live nodes: a join retries through the next when one does not answer.
        List<Address> bootstrap = new ArrayList<>();
        List<Integer> live = liveIndexes();
        for (int i = 0; i < 3 && !live.isEmpty(); i++) {
            bootstrap.add(slots.get(live.remove(random.nextInt(live.size()))).contact.address());
        }
        boot(slot, bootstrap);
    }

    private void boot(Slot slot, List<Address> bootstrap) {
        Store store = faultsOn ? slot.faulty : slot.store;
        NodeLoop loop = faultsOn ? new NodeLoop(scheduler, latency, slot.contact.address(), e -> escapedExceptions++)
                : new NodeLoop(scheduler, latency, slot.contact.address());
        if (storeDelayNanos > 0) {
            store = new DeferredStore(store, loop, storeDelayNanos);
        }
        Clock clock = scheduler;
        if (faultsOn) {
            slot.expiry = new ExpiryClock(slot.clock, ExpiryClock.SKEW_BOUND_MILLIS);
            slot.expiry.attach(store);
            clock = slot.expiry;
        }
        NodeEnv env = new NodeEnv(clock, loop, network.transportFor(slot.contact.address()), store, random.split(),
                RequestIds.OWN_STREAM);
        Node node = new Node(config, slot.contact, env, listener, bugs);
        slot.node = node;
        slot.alive = true;
        slot.leaving = false;
        network.listen(slot.contact.address(), node::receive);
        node.start(bootstrap);
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
        if (maxWave < 1) {
            throw new IllegalArgumentException("maxWave must be positive, got " + maxWave);
        }
        int added = 0;
        int late = 0;
        if (slots.isEmpty() && n > 0) {
            addNodes(1);
            added = 1;
        }
        while (added < n) {
            int[] joined = joinedIndexes();
            if (joined.length == 0) {
                throw new IllegalStateException("no joined node to join through");
            }
            int wave = Math.min(n - added, Math.min(maxWave, joined.length));
            int first = slots.size();
            for (int i = 0; i < wave; i++) {
                boot(slots.get(newSlot()), randomDistinct(joined, 3));
            }
            int end = slots.size();
            // Nodes join in about the same order they started: checking the earliest unjoined one is enough most of
            // the time, and keeps the per-event check O(1).
            int[] next = {first};
            BooleanSupplier allJoined = () -> {
                while (next[0] < end && slots.get(next[0]).node.isJoined()) {
                    next[0]++;
                }
                return next[0] == end;
            };
            long start = scheduler.nanoTime();
            long deadline = start + WAVE_MAX_NANOS;
            // All but one in a thousand: in a large wave the last few joins are ones that met a swamped node, and
            // waiting for them costs the whole overlay's maintenance for seconds of virtual time.
            int lateInWave = 0;
            while (!scheduler.runUntil(allJoined, Math.min(deadline, scheduler.nanoTime() + WAVE_CHECK_NANOS))) {
                int unjoined = unjoined(first, end);
                if (unjoined <= wave / 1000 || scheduler.nanoTime() >= deadline) {
                    lateInWave = unjoined;
                    break;
                }
            }
            late += lateInWave;
            added += wave;
            listener.waveEnded(wave, scheduler.nanoTime() - start, lateInWave);
        }
        return late;
    }

    private int unjoined(int first, int end) {
        int n = 0;
        for (int i = first; i < end; i++) {
            n += slots.get(i).node.isJoined() ? 0 : 1;
        }
        return n;
    }

    /**
     * Creates a node and starts its join through up to three random {@linkplain #servingIndexes() serving} nodes,
     * without running the scheduler, so that an event may call it; returns its index. The node joins through the
     * protocol as the world runs on.
     *
     * @throws IllegalStateException when the world has nodes but none serving to join through
     */
    public int startNode() {
        int[] serving = joinedIndexes();
        if (serving.length == 0 && !slots.isEmpty()) {
            throw new IllegalStateException("no joined node to join through");
        }
        int index = newSlot();
        boot(slots.get(index), randomDistinct(serving, 3));
        return index;
    }

    /**
     * The nodes a client or a joining node can use: alive, joined and not leaving, in index order.
     */
    public List<Integer> servingIndexes() {
        List<Integer> out = new ArrayList<>();
        for (int i : joinedIndexes()) {
            out.add(i);
        }
        return out;
    }

    private int[] joinedIndexes() {
        int[] out = new int[slots.size()];
        int n = 0;
        for (int i = 0; i < slots.size(); i++) {
            Slot s = slots.get(i);
            if (s.alive && !s.leaving && s.node.isJoined()) {
                out[n++] = i;
            }
        }
        return Arrays.copyOf(out, n);
    }

    /** Up to {@code k} distinct addresses of the nodes {@code from} names, drawn from the world's random source. */
    private List<Address> randomDistinct(int[] from, int k) {
        List<Address> out = new ArrayList<>(k);
        int m = Math.min(k, from.length);
        int[] picked = new int[m];
        while (out.size() < m) {
            int index = from[random.nextInt(from.length)];
            boolean fresh = true;
            for (int i = 0; i < out.size(); i++) {
                fresh &= picked[i] != index;
            }
            if (fresh) {
                picked[out.size()] = index;
                out.add(slots.get(index).contact.address());
            }
        }
        return out;
    }

    /** Abrupt death: the node stops and its address goes dark; it sends nothing more. */
    public void kill(int index) {
        Slot slot = slots.get(index);
        slot.node.stop();
        network.unlisten(slot.contact.address());
        slot.alive = false;
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
        storeDelayNanos = delayNanos;
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
        if (!slots.isEmpty()) {
            throw new IllegalStateException("faults must be enabled before the first node is added");
        }
        if (syncIntervalMillis < 1) {
            throw new IllegalArgumentException("syncIntervalMillis must be positive, got " + syncIntervalMillis);
        }
        faultsOn = true;
        syncIntervalNanos = syncIntervalMillis * 1_000_000L;
        bugs = plantedBugs;
    }

    /**
     * Crashes node {@code index} as {@link #kill} does, and does {@code disk} to its store; {@link #restart} brings
     * it back on what is left. A disk other than {@link Disk#KEPT} needs {@link #enableFaults}.
     */
    public void crash(int index, Disk disk) {
        Slot slot = slots.get(index);
        kill(index);
        if (disk == Disk.KEPT) {
            return;
        }
        if (!faultsOn) {
            throw new IllegalStateException("disk faults need enableFaults");
        }
        boolean full = slot.faulty.isFull();
        refusedOnLostDisks += slot.faulty.refused();
        slot.store = disk == Disk.LOST ? new MemoryStore(slot::expiryMillis)
                : slot.faulty.afterPowerLoss(slot::expiryMillis);
        slot.faulty = new FaultyStore(slot.store, scheduler, syncIntervalNanos);
        slot.faulty.full(full);
    }

    /** Steps node {@code index}'s wall clock to {@code offsetMillis} from the true time (needs faults). */
    public void clockOffsetMillis(int index, long offsetMillis) {
        faultySlot(index).clock.offsetMillis(offsetMillis);
    }

    /** Node {@code index}'s expiry clock minus the true time, in ms: how far off it judges expiry; 0 without faults. */
    public long expiryClockErrorMillis(int index) {
        Slot slot = slots.get(index);
        return slot.clock == null ? 0 : slot.expiryMillis() - scheduler.epochMillis();
    }

    /** How far node {@code index}'s wall clock is from the true time; 0 without faults. */
    public long clockOffsetMillis(int index) {
        Slot slot = slots.get(index);
        return slot.clock == null ? 0 : slot.clock.offsetMillis();
    }

    /** Fills node {@code index}'s disk (every write throws) or frees it (needs faults). */
    public void diskFull(int index, boolean full) {
        faultySlot(index).faulty.full(full);
    }

    /** Writes refused by full disks so far, over every node's current disk. */
    public long writesRefused() {
        long n = refusedOnLostDisks;
        for (Slot s : slots) {
            n += s.faulty == null ? 0 : s.faulty.refused();
        }
        return n;
    }

    /** Exceptions thrown out of nodes' tasks so far (with faults on; without, they end the run). */
    public long escapedExceptions() {
        return escapedExceptions;
    }

    private Slot faultySlot(int index) {
        Slot slot = slots.get(index);
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
        Slot slot = slots.get(index);
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
        Slot slot = slots.get(index);
        if (slot.alive) {
            throw new IllegalStateException("node " + index + " is alive");
        }
        boot(slot);
    }

    /**
     * Starts a dead node again with its id and store, as {@link #restart} does, but listening on another port of its
     * host, as a real node restarted on port 0 does: its neighbours still hold its old address. Draws from the world's
     * random source only as {@link #restart} does.
     */
    public void restartOnNewPort(int index) {
        Slot slot = slots.get(index);
        if (slot.alive) {
            throw new IllegalStateException("node " + index + " is alive");
        }
        Address old = slot.contact.address();
        // The host names the node's index, so no other node listens on any of its ports.
        slot.contact = new Contact(slot.contact.id(), new Address(old.host(), old.port() % 65_535 + 1));
        boot(slot);
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

    public Contact contact(int index) {
        return slots.get(index).contact;
    }

    public boolean isAlive(int index) {
        return slots.get(index).alive;
    }

    public List<Integer> liveIndexes() {
        List<Integer> live = new ArrayList<>();
        for (int i = 0; i < slots.size(); i++) {
            if (slots.get(i).alive) {
                live.add(i);
            }
        }
        return live;
    }

    /** The world's random source, for tests and experiments that draw from the same seed. */
    public SplittableRandom random() {
        return random;
    }
}
