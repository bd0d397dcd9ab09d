package io.rattan.sim.experiment;

import io.rattan.api.Bytes;
import io.rattan.api.Status;
import io.rattan.core.client.GetRace;
import io.rattan.core.msg.RequestMessages.GetReply;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.HdrHistogram.Histogram;

/**
 * What the rounds of an {@link OpenDhtTable} run measured, per mode: latencies in microseconds, failed and hedged
 * gets, the latencies again over only the rounds whose own gateway was not slow, the messages and bytes charged to
 * the mode's gets, and the oracle's bound per round. The simulator and {@code bench table} keep the same tally, so
 * their rows are read the same way. Touched from one thread only (the simulation's, or the table's loop).
 */
public final class RoundTally {

    /** An hour: no get, failed or not, is measured longer. */
    private static final long LATENCY_MICROS_MAX = 3_600_000_000L;

    private final Histogram[] latency;
    private final Histogram[] healthyGateway;
    private final long[] failed;
    private final long[] hedges;
    private final long[] messages;
    private final long[] bytes;
    /** Each mode's first failed answer, for the report: a failure's reason is what to look at first. */
    private final String[] firstFailure;
    private final Histogram oracle = new Histogram(LATENCY_MICROS_MAX, 3);
    private final GetLog gets = new GetLog();
    private final List<String> modeNames;
    private long healthyRounds;
    private int roundsDone;
    private long getPhaseStartNanos;

    /** A tally of the given modes, in the order their indexes name them. */
    public RoundTally(List<OpenDhtTable.Mode> modes) {
        int n = modes.size();
        modeNames = modes.stream().map(OpenDhtTable.Mode::name).toList();
        latency = new Histogram[n];
        healthyGateway = new Histogram[n];
        failed = new long[n];
        hedges = new long[n];
        messages = new long[n];
        bytes = new long[n];
        firstFailure = new String[n];
        for (int i = 0; i < n; i++) {
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

    /** A round starts; {@code healthy} when its own gateway is not in a slow period then. */
    public void roundStarted(boolean healthy) {
        healthyRounds += healthy ? 1 : 0;
    }

    /** The oracle's bound for one round: the fastest any of the key's live replicas could have answered. */
    public void oracle(long micros) {
        oracle.recordValue(Math.max(1, Math.min(micros, LATENCY_MICROS_MAX)));
    }

    /**
     * One get of {@code mode} was decided. It is good only if it returned exactly {@code expected}; a failed get
     * counts at least the request timeout, as a client that gave up would have waited. Recorded in the histograms
     * and as a line of {@code gets.csv}.
     */
    public void decided(GetLog.Round round, int mode, GetRace.Result result, Bytes expected, boolean healthy,
                        long requestTimeoutNanos) {
        boolean ok = result.reply() instanceof GetReply g && g.status() == Status.OK
                && g.values().size() == 1 && g.values().get(0).value().equals(expected);
        long micros = Math.min(LATENCY_MICROS_MAX, ok ? Math.max(1, result.latencyNanos() / 1000)
                : Math.max(result.latencyNanos(), requestTimeoutNanos) / 1000);
        if (!ok && firstFailure[mode] == null) {
            String text = String.valueOf(result.reply());
            firstFailure[mode] = text.length() > 300 ? text.substring(0, 300) + "..." : text;
        }
        latency[mode].recordValue(micros);
        if (healthy) {
            healthyGateway[mode].recordValue(micros);
        }
        failed[mode] += ok ? 0 : 1;
        hedges[mode] += result.hedged() ? 1 : 0;
        gets.add(round, modeNames.get(mode), micros, ok, healthy, result.hedged());
    }

    /** Messages and bytes one of {@code mode}'s gets caused; charged whenever they are known, late answers too. */
    public void charge(int mode, long msgs, long size) {
        messages[mode] += msgs;
        bytes[mode] += size;
    }

    /** Every get, one line each, for {@code gets.csv}. */
    public GetLog gets() {
        return gets;
    }

    public void roundDone() {
        roundsDone++;
    }

    public int roundsDone() {
        return roundsDone;
    }

    public long oracleCount() {
        return oracle.getTotalCount();
    }

    /** The first failed answer of each mode that had one, by mode index; null for the others. */
    public List<String> firstFailures() {
        return Arrays.asList(firstFailure.clone());
    }

    /** Every mode's latencies in mode order, then the oracle's. */
    List<Histogram> histograms() {
        List<Histogram> histograms = new ArrayList<>(List.of(latency));
        histograms.add(oracle);
        return histograms;
    }

    /** Each mode's p99 in ms over the rounds whose own gateway was healthy when they started (0 without any). */
    public List<Double> healthyGatewayP99Ms() {
        List<Double> p99 = new ArrayList<>();
        for (Histogram h : healthyGateway) {
            p99.add(h.getTotalCount() == 0 ? 0 : h.getValueAtPercentile(99) / 1000.0);
        }
        return p99;
    }

    public long healthyRounds() {
        return healthyRounds;
    }

    /**
     * Each mode's row with its costs per get of the mode, then the oracle's; {@code getsPerMode} divides the costs
     * (the gets asked for, so that a run cut short is not flattered).
     */
    public List<OpenDhtTable.Row> rows(long getsPerMode) {
        List<OpenDhtTable.Row> rows = new ArrayList<>();
        long per = Math.max(1, getsPerMode);
        for (int i = 0; i < latency.length; i++) {
            rows.add(OpenDhtTable.row(modeNames.get(i), latency[i], (double) messages[i] / per,
                    (double) bytes[i] / per, failed[i], hedges[i]));
        }
        rows.add(OpenDhtTable.row("oracle", oracle, null, null, 0, 0));
        return rows;
    }
}
