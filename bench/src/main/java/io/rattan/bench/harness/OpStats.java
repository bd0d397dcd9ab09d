package io.rattan.bench.harness;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * What the harness measured of one operation kind (a get mode, or puts) since the run began: latency in
 * microseconds, corrected for coordinated omission (from the intended start) and uncorrected (from the actual
 * send), and cumulative counts. Any thread may record; {@link RunLog}'s ticker takes the interval histograms.
 */
final class OpStats {

    /** Latencies above an hour are recorded as an hour. */
    static final long LATENCY_MICROS_MAX = TimeUnit.HOURS.toMicros(1);
    static final int SIGNIFICANT_DIGITS = 3;

    /** How an operation ended. */
    enum Outcome { SUCCESS, TIMEOUT, ERROR, WRONG }

    private final String name;
    private final Recorder corrected = new Recorder(1, LATENCY_MICROS_MAX, SIGNIFICANT_DIGITS);
    private final Recorder uncorrected = new Recorder(1, LATENCY_MICROS_MAX, SIGNIFICANT_DIGITS);
    private final LongAdder[] outcomes = new LongAdder[Outcome.values().length];
    private final LongAdder hops = new LongAdder();
    private final LongAdder messages = new LongAdder();
    private final LongAdder bytes = new LongAdder();

    OpStats(String name) {
        this.name = name;
        for (int i = 0; i < outcomes.length; i++) {
            outcomes[i] = new LongAdder();
        }
    }

    String name() {
        return name;
    }

    void record(Outcome outcome, long correctedNanos, long uncorrectedNanos, long hopCount, long messageCount,
                long byteCount) {
        corrected.recordValue(micros(correctedNanos));
        uncorrected.recordValue(micros(uncorrectedNanos));
        outcomes[outcome.ordinal()].increment();
        hops.add(hopCount);
        messages.add(messageCount);
        bytes.add(byteCount);
    }

    /** The corrected latencies recorded since the last call (the first: since construction). Ticker thread only. */
    Histogram takeCorrected(Histogram recycle) {
        return corrected.getIntervalHistogram(recycle);
    }

    /** As {@link #takeCorrected}, for the uncorrected latencies. */
    Histogram takeUncorrected(Histogram recycle) {
        return uncorrected.getIntervalHistogram(recycle);
    }

    /** Cumulative counts: the outcomes in {@link Outcome} order, then hops, messages, bytes. */
    long[] counts() {
        long[] c = new long[outcomes.length + 3];
        for (int i = 0; i < outcomes.length; i++) {
            c[i] = outcomes[i].sum();
        }
        c[outcomes.length] = hops.sum();
        c[outcomes.length + 1] = messages.sum();
        c[outcomes.length + 2] = bytes.sum();
        return c;
    }

    long count(Outcome outcome) {
        return outcomes[outcome.ordinal()].sum();
    }

    private static long micros(long nanos) {
        return Math.max(1, Math.min(LATENCY_MICROS_MAX, TimeUnit.NANOSECONDS.toMicros(nanos)));
    }
}
