package io.rattan.sim.experiment;

import io.rattan.core.node.NodeConfig;
import io.rattan.core.virtual.VirtualWorld;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.IntConsumer;

/**
 * Plays a {@link ChurnPlan} in a running world, one scheduled event per churn event. A join starts a brand-new node
 * that joins through the protocol via random serving nodes; a leave starts the node's own graceful leave (hand-off,
 * then dark); a crash kills a node at once. Leaves and crashes pick a random serving node (alive, joined, not
 * leaving), and are skipped when fewer than {@code minServing + 1} serve, so that the overlay keeps enough nodes for
 * a replica set and a leaf set. It also integrates the number of live nodes over time, for per-node rates.
 */
final class ChurnDriver {

    private final VirtualWorld world;
    private final ChurnPlan plan;
    private final int minServing;
    private final SplittableRandom random;
    private final IntConsumer started;
    private final List<Integer> added = new ArrayList<>();
    private final List<Integer> left = new ArrayList<>();
    private final List<Integer> crashed = new ArrayList<>();
    private int skippedLeaves;
    private int skippedCrashes;
    private int fired;
    private int alive;
    private long since;
    private long aliveNanos;

    /**
     * @param random  picks the nodes that leave or crash
     * @param started told the index of each new node as it starts, before any message reaches it
     */
    ChurnDriver(VirtualWorld world, ChurnPlan plan, int minServing, SplittableRandom random, IntConsumer started) {
        this.world = world;
        this.plan = plan;
        this.minServing = minServing;
        this.random = random;
        this.started = started;
    }

    /** The floor the experiment keeps: a replica set plus a whole leaf set, and never fewer than 16. */
    static int minServing(NodeConfig config) {
        return Math.max(16, config.replicas() + 2 * config.leafSetHalf());
    }

    /** Schedules every event, the plan's times counted from now. */
    void start() {
        since = world.scheduler().nanoTime();
        alive = world.liveIndexes().size();
        for (ChurnPlan.Event e : plan.events()) {
            world.scheduler().schedule(e.atNanos(), () -> fire(e.kind()));
        }
    }

    /** Whether every event of the plan has fired (leaves may still be handing off). */
    boolean finished() {
        return fired == plan.events().size();
    }

    private void fire(ChurnPlan.Kind kind) {
        fired++;
        if (kind == ChurnPlan.Kind.JOIN) {
            int index = world.startNode();
            started.accept(index);
            added.add(index);
            aliveChanged();
            return;
        }
        List<Integer> serving = world.servingIndexes();
        if (serving.size() <= minServing) {
            if (kind == ChurnPlan.Kind.LEAVE) {
                skippedLeaves++;
            } else {
                skippedCrashes++;
            }
            return;
        }
        int victim = serving.get(random.nextInt(serving.size()));
        if (kind == ChurnPlan.Kind.LEAVE) {
            left.add(victim);
            world.startLeave(victim, this::aliveChanged);
        } else {
            crashed.add(victim);
            world.kill(victim);
            aliveChanged();
        }
    }

    private void aliveChanged() {
        long now = world.scheduler().nanoTime();
        aliveNanos += (long) alive * (now - since);
        since = now;
        alive = world.liveIndexes().size();
    }

    /** Node-nanoseconds of live nodes from {@link #start} until now. */
    long aliveNodeNanos() {
        return aliveNanos + (long) alive * (world.scheduler().nanoTime() - since);
    }

    List<Integer> added() {
        return List.copyOf(added);
    }

    List<Integer> left() {
        return List.copyOf(left);
    }

    List<Integer> crashed() {
        return List.copyOf(crashed);
    }

    /** What happened so far. */
    Churn.Counts counts() {
        int joined = 0;
        for (int i : added) {
            joined += world.node(i).isJoined() ? 1 : 0;
        }
        return new Churn.Counts(added.size(), joined, left.size(), crashed.size(), skippedLeaves, skippedCrashes,
                minServing, world.liveIndexes().size());
    }
}
