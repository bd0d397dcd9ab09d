package io.rattan.core.node;

import io.rattan.api.Address;
import io.rattan.core.virtual.VirtualNetwork;

/**
 * Link faults that only lose messages, those {@link #lost} picks: no delay added, no reordering, no duplicates. The
 * faults {@link PartitionHealTest} and {@link RangeRepairTest} set on the virtual network.
 */
abstract class LosingLinks implements VirtualNetwork.LinkFaults {

    /** Whether this message from {@code from} to {@code to} is lost. */
    abstract boolean lost(Address from, Address to);

    @Override
    public final int copies(Address from, Address to) {
        return lost(from, to) ? 0 : 1;
    }

    @Override
    public final long extraDelayNanos(Address from, Address to) {
        return 0;
    }

    @Override
    public final boolean reorders(Address from, Address to) {
        return false;
    }
}
