package io.rattan.sim.faults;

import io.rattan.api.Address;
import io.rattan.core.virtual.VirtualAddresses;
import io.rattan.core.virtual.VirtualNetwork;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * The network faults in force, as the {@link VirtualNetwork} asks about each message: at most one partition (a side
 * per node; messages between sides are lost, or only those from side 0 to side 1 when it is one-way), and rates of
 * drop, duplication and reordering and an extra delay. Draws only from its own random source. Single-threaded.
 */
final class LinkFaultState implements VirtualNetwork.LinkFaults {

    private final SplittableRandom random;
    private final byte[] side;
    private boolean partitioned;
    private boolean oneWay;
    double dropRate;
    double duplicateRate;
    double reorderRate;
    long extraDelayMaxNanos;

    LinkFaultState(SplittableRandom random, int nodes) {
        this.random = random;
        this.side = new byte[nodes];
    }

    /** Splits the nodes: {@code sides[i]} is node i's side (0 or 1); {@code oneWayOnly}: only 0 → 1 is lost. */
    void partition(byte[] sides, boolean oneWayOnly) {
        System.arraycopy(sides, 0, side, 0, side.length);
        partitioned = true;
        oneWay = oneWayOnly;
    }

    void heal() {
        partitioned = false;
        Arrays.fill(side, (byte) 0);
    }

    /** Whether a partition in force cuts nodes {@code a} and {@code b} apart, either way. */
    boolean separated(int a, int b) {
        return partitioned && (cut(a, b) || cut(b, a));
    }

    boolean isPartitioned() {
        return partitioned;
    }

    void clearRates() {
        dropRate = 0;
        duplicateRate = 0;
        reorderRate = 0;
        extraDelayMaxNanos = 0;
    }

    @Override
    public int copies(Address from, Address to) {
        if (partitioned && cut(VirtualAddresses.index(from), VirtualAddresses.index(to))) {
            return 0;
        }
        if (dropRate > 0 && random.nextDouble() < dropRate) {
            return 0;
        }
        return duplicateRate > 0 && random.nextDouble() < duplicateRate ? 2 : 1;
    }

    private boolean cut(int a, int b) {
        if (a < 0 || b < 0 || a >= side.length || b >= side.length) {
            return false;
        }
        return oneWay ? side[a] == 0 && side[b] == 1 : side[a] != side[b];
    }

    @Override
    public long extraDelayNanos(Address from, Address to) {
        return extraDelayMaxNanos > 0 ? random.nextLong(extraDelayMaxNanos + 1) : 0;
    }

    @Override
    public boolean reorders(Address from, Address to) {
        // A copy free of FIFO arrives after its own drawn delay: when that is shorter than the delay of a message sent
        // before it on the link (the latency model's jitter), it overtakes it.
        return reorderRate > 0 && random.nextDouble() < reorderRate;
    }
}
