package io.rattan.core.behaviour;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.core.msg.Message;
import io.rattan.core.node.NodeConfig;
import io.rattan.core.node.NodeStatus;
import io.rattan.core.store.MemoryStore;
import io.rattan.core.store.StoredRecord;
import io.rattan.core.virtual.LatencyModel;
import io.rattan.core.virtual.VirtualWorld;
import java.time.Duration;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/** The behaviour suite's cluster in the virtual world: 1–20 ms links, virtual time. */
public final class VirtualHarness implements ClusterHarness {

    private static final long AWAIT_VIRTUAL_NANOS = Duration.ofMinutes(10).toNanos();

    final VirtualWorld world;

    public VirtualHarness(long seed, int nodes, NodeConfig config) {
        this(seed, nodes, config, 0);
    }

    /** With every node's store work run {@code storeDelayNanos} after it is submitted ({@link VirtualWorld#deferStoreWork}). */
    public VirtualHarness(long seed, int nodes, NodeConfig config, long storeDelayNanos) {
        LatencyModel latency = (from, to, random) -> 1_000_000L + (long) (random.nextDouble() * 19_000_000L);
        world = new VirtualWorld(seed, config, latency);
        world.deferStoreWork(storeDelayNanos);
        world.addNodes(nodes);
    }

    @Override
    public int size() {
        return world.size();
    }

    @Override
    public Message request(int node, Message clientRequest) {
        return world.request(node, clientRequest);
    }

    @Override
    public void kill(int node) {
        world.kill(node);
    }

    @Override
    public void leave(int node) {
        world.leave(node);
    }

    @Override
    public void restart(int node) {
        world.restart(node);
    }

    @Override
    public boolean isAlive(int node) {
        return world.isAlive(node);
    }

    @Override
    public NodeStatus status(int node) {
        return world.node(node).status();
    }

    @Override
    public Optional<StoredRecord> read(int node, Id key, Bytes slot) {
        return world.store(node).read(key, slot);
    }

    @Override
    public void loseRecord(int node, Id key, Bytes slot) {
        MemoryStore store = world.store(node);
        StoredRecord r = store.read(key, slot).orElseThrow(() -> new AssertionError("node " + node
                + " holds no record " + slot + " of " + key.shortHex()));
        // Without faults the stores judge expiry by the world's clock.
        store.write(new StoredRecord(r.key(), r.valueHash(), r.value(), world.scheduler().epochMillis() + 1,
                r.binding(), r.secret(), r.tombstone()));
        world.runFor(Duration.ofMillis(2).toNanos());
    }

    @Override
    public void await(String what, BooleanSupplier condition) {
        // Check between slices of virtual time: conditions read many stores and are too costly per event.
        long deadline = world.scheduler().nanoTime() + AWAIT_VIRTUAL_NANOS;
        while (!condition.getAsBoolean()) {
            if (world.scheduler().nanoTime() >= deadline) {
                throw new AssertionError("not within 10 minutes of virtual time: " + what);
            }
            world.runFor(Duration.ofMillis(100).toNanos());
        }
    }

    @Override
    public void pass(Duration d) {
        world.runFor(d.toNanos());
    }

    @Override
    public void close() {
    }
}
