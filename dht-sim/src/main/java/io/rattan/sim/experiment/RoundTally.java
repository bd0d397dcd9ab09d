package io.rattan.sim.experiment;

import java.util.ArrayList;
import java.util.List;
import org.HdrHistogram.Histogram;

/**
 * What the rounds of an {@link OpenDhtTable} run measured, per mode: latencies in microseconds, failed and hedged
 * gets, the latencies again over only the rounds whose own gateway was not slow, and the oracle's bound. Touched only
 * from the simulation's one thread.
 */
final class RoundTally {

    /** An hour: no get, failed or not, is measured longer. */
    private static final long LATENCY_MICROS_MAX = 3_600_000_000L;

    private final Histogram[] latency;
    private final Histogram[] healthyGateway;
    private final long[] failed;
    private final long[] hedges;
    private final Histogram oracle = new Histogram(LATENCY_MICROS_MAX, 3);
    private final GetLog gets = new GetLog();
    private long healthyRounds;
    private int roundsDone;
    private long getPhaseStartNanos;

    RoundTally(int modes) {
        latency = new Histogram[modes];
        healthyGateway = new Histogram[modes];
        failed = new long[modes];
        hedges = new long[modes];
        for (int i = 0; i < modes; i++) {
            latency[i] = new Histogram(LATENCY_MICROS_MAX, 3);
            healthyGateway[i] = new Histogram(LATENCY_MICROS_MAX, 3);
        }
    }

    /** The get phase starts at {@code nanos} of the world's time, which is also the slow trace's. */
    void getPhaseStarts(long nanos) {
        getPhaseStartNanos = nanos;
    }

    long getPhaseStartNanos() {
        return getPhaseStartNanos;
    }

    /** A round starts: the oracle's bound for it, and whether its own gateway is healthy (not slow). */
    void roundStarted(long oracleMicros, boolean healthy) {
        oracle.recordValue(oracleMicros);
        healthyRounds += healthy ? 1 : 0;
    }

    /** One get of {@code mode} was decided, in a round whose gateway was {@code healthy} when it started. */
    void record(int mode, long micros, boolean ok, boolean healthy, boolean hedged) {
        latency[mode].recordValue(micros);
        failed[mode] += ok ? 0 : 1;
        if (healthy) {
            healthyGateway[mode].recordValue(micros);
        }
        if (hedged) {
            hedges[mode]++;
        }
    }

    /** Every get, one line each, for {@code gets.csv}. */
    GetLog gets() {
        return gets;
    }

    void roundDone() {
        roundsDone++;
    }

    int roundsDone() {
        return roundsDone;
    }

    Histogram latency(int mode) {
        return latency[mode];
    }

    long failed(int mode) {
        return failed[mode];
    }

    long hedges(int mode) {
        return hedges[mode];
    }

    Histogram oracle() {
        return oracle;
    }

    /** Every mode's latencies in mode order, then the oracle's. */
    List<Histogram> histograms() {
        List<Histogram> histograms = new ArrayList<>(List.of(latency));
        histograms.add(oracle);
        return histograms;
    }

    List<Double> healthyGatewayP99Ms() {
        List<Double> p99 = new ArrayList<>();
        for (Histogram h : healthyGateway) {
            p99.add(h.getValueAtPercentile(99) / 1000.0);
        }
        return p99;
    }

    long healthyRounds() {
        return healthyRounds;
    }
}
