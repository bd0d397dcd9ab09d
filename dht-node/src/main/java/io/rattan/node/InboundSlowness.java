package io.rattan.node;

import io.rattan.core.slow.SlowPeriod;
import java.util.List;

/**
 * Fault injection for experiments: the slow periods (the simulator's trace format, {@code SlowTrace}) during which
 * this node handles its input late, as a slow host would. Periods count from {@code armedAtEpochMillis}, or from the
 * node's start when it is negative. {@link #NONE} (no period) is the default: the hook is off.
 *
 * @param periods            this node's periods only (the trace's lines for its index)
 * @param armedAtEpochMillis wall-clock time the periods count from; negative: when the node starts
 */
public record InboundSlowness(List<SlowPeriod> periods, long armedAtEpochMillis) {

    public static final InboundSlowness NONE = new InboundSlowness(List.of(), -1);

    public InboundSlowness {
        periods = List.copyOf(periods);
    }

    /** The periods of node {@code index} in {@code trace}, counting from {@code armedAtEpochMillis}. */
    public static InboundSlowness forNode(List<SlowPeriod> trace, int index, long armedAtEpochMillis) {
        return new InboundSlowness(trace.stream().filter(p -> p.node() == index).toList(), armedAtEpochMillis);
    }

    public boolean isOff() {
        return periods.isEmpty();
    }
}
