package io.rattan.bench.harness;

import io.rattan.sim.experiment.GetLog;
import io.rattan.sim.experiment.OpenDhtTable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.HdrHistogram.Histogram;

/**
 * What the rounds of a {@code bench table} run measured, per mode: latencies in microseconds, failed and hedged
 * gets, and the messages and bytes charged to the mode's gets; and the oracle's bound per round. Confined to the
 * table's loop ({@link GatewayLinks}).
 */
final class TableTally {

    /** An hour: no get, failed or not, is measured longer (as the simulator's tally). */
    private static final long LATENCY_MICROS_MAX = 3_600_000_000L;

    private final Histogram[] latency;
    // Only the gets of rounds whose own gateway was not slow when they started, as the simulator's report splits them.
    private final Histogram[] healthyGateway;
    private long healthyRounds;
    private final long[] failed;
    private final long[] hedges;
    private final long[] messages;
    private final long[] bytes;
    private final Histogram oracle = new Histogram(LATENCY_MICROS_MAX, 3);
    /** Each mode's first failed answer, for the report: a failure's reason is what to look at first. */
    private final String[] firstFailure;
    private final GetLog gets = new GetLog();
    private int roundsDone;

    TableTally(int modes) {
        latency = new Histogram[modes];
        healthyGateway = new Histogram[modes];
        failed = new long[modes];
        hedges = new long[modes];
        messages = new long[modes];
        bytes = new long[modes];
        firstFailure = new String[modes];
        for (int i = 0; i < modes; i++) {
            latency[i] = new Histogram(LATENCY_MICROS_MAX, 3);
            healthyGateway[i] = new Histogram(LATENCY_MICROS_MAX, 3);
        }
    }

    /** A round starts; {@code healthy} when its own gateway is not in a slow period then. */
    void roundStarted(boolean healthy) {
        healthyRounds += healthy ? 1 : 0;
    }

    void record(int mode, long micros, boolean ok, boolean hedged, boolean healthy, Object answer) {
        if (!ok && firstFailure[mode] == null) {
            String text = String.valueOf(answer);
            firstFailure[mode] = text.length() > 300 ? text.substring(0, 300) + "..." : text;
        }
        latency[mode].recordValue(Math.min(micros, LATENCY_MICROS_MAX));
        if (healthy) {
            healthyGateway[mode].recordValue(Math.min(micros, LATENCY_MICROS_MAX));
        }
        failed[mode] += ok ? 0 : 1;
        hedges[mode] += hedged ? 1 : 0;
    }

    /** Messages and bytes one of {@code mode}'s gets caused; charged whenever they are known, late answers too. */
    void charge(int mode, long msgs, long size) {
        messages[mode] += msgs;
        bytes[mode] += size;
    }

    void oracle(long micros) {
        oracle.recordValue(Math.max(1, Math.min(micros, LATENCY_MICROS_MAX)));
    }

    /** Every get, one line each, for {@code gets.csv}: the simulator's file, joined to it by round. */
    GetLog gets() {
        return gets;
    }

    void roundDone() {
        roundsDone++;
    }

    int roundsDone() {
        return roundsDone;
    }

    /** The first failed answer of each mode that had one, by mode index; null for the others. */
    List<String> firstFailures() {
        return Arrays.asList(firstFailure.clone());
    }

    long healthyRounds() {
        return healthyRounds;
    }

    /** Each mode's p99 in ms over the rounds whose own gateway was healthy when they started (0 without any). */
    List<Double> healthyGatewayP99Ms() {
        List<Double> p99 = new ArrayList<>();
        for (Histogram h : healthyGateway) {
            p99.add(h.getTotalCount() == 0 ? 0 : h.getValueAtPercentile(99) / 1000.0);
        }
        return p99;
    }

    long oracleCount() {
        return oracle.getTotalCount();
    }

    /** Each mode's row, costs per get of the mode, then the oracle's: the simulator's rows, read the same way. */
    List<OpenDhtTable.Row> rows(List<OpenDhtTable.Mode> modes) {
        List<OpenDhtTable.Row> rows = new ArrayList<>();
        for (int i = 0; i < modes.size(); i++) {
            long gets = Math.max(1, latency[i].getTotalCount());
            rows.add(OpenDhtTable.row(modes.get(i).name(), latency[i], (double) messages[i] / gets,
                    (double) bytes[i] / gets, failed[i], hedges[i]));
        }
        rows.add(OpenDhtTable.row("oracle", oracle, null, null, 0, 0));
        return rows;
    }
}
