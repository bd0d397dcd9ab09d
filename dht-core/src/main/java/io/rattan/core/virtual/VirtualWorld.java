package io.rattan.core.virtual;

import io.rattan.core.env.NodeEnv;
import io.rattan.core.id.Id;
import io.rattan.core.msg.Message;
import io.rattan.core.net.Address;
import io.rattan.core.net.Contact;
import io.rattan.core.node.Node;
import io.rattan.core.node.NodeConfig;
import io.rattan.core.node.NodeListener;
import io.rattan.core.store.MemoryStore;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.BooleanSupplier;

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
    private final List<Slot> slots = new ArrayList<>();
    private final NodeListener listener;

    private static final class Slot {
        final Contact contact;
        final MemoryStore store;
        Node node;
        boolean alive;

        Slot(Contact contact, MemoryStore store) {
            this.contact = contact;
            this.store = store;
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
        int index = slots.size();
        Contact contact = new Contact(Id.random(random), new Address("node" + index, index + 1));
        Slot slot = new Slot(contact, new MemoryStore(scheduler));
        slots.add(slot);
        boot(slot);
        return index;
    }

    private void boot(Slot slot) {
        // Up to three random live nodes: a join retries through the next when one does not answer.
        List<Address> bootstrap = new ArrayList<>();
        List<Integer> live = liveIndexes();
        for (int i = 0; i < 3 && !live.isEmpty(); i++) {
            bootstrap.add(slots.get(live.remove(random.nextInt(live.size()))).contact.address());
        }
        NodeEnv env = new NodeEnv(scheduler, scheduler, network.transportFor(slot.contact.address()), slot.store,
                random.split());
        Node node = new Node(config, slot.contact, env, listener);
        slot.node = node;
        slot.alive = true;
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

    /** Abrupt death: the node stops and its address goes dark; it sends nothing more. */
    public void kill(int index) {
        Slot slot = slots.get(index);
        slot.node.stop();
        network.unlisten(slot.contact.address());
        slot.alive = false;
    }

    /** Graceful leave: hand-off, then the address goes dark. */
    public void leave(int index) {
        Slot slot = slots.get(index);
        boolean[] done = {false};
        slot.node.leave(() -> done[0] = true);
        scheduler.runUntil(() -> done[0], scheduler.nanoTime() + 30 * SECOND);
        network.unlisten(slot.contact.address());
        slot.alive = false;
    }

    /** Starts a dead node again with its id and store, joining through a live node. */
    public void restart(int index) {
        Slot slot = slots.get(index);
        if (slot.alive) {
            throw new IllegalStateException("node " + index + " is alive");
        }
        boot(slot);
    }

    /** Sends a client request to node {@code index} as gateway and runs the world until it is answered. */
    public Message request(int index, Message clientRequest) {
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
