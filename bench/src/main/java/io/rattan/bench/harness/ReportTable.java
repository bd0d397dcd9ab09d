package io.rattan.bench.harness;

import java.util.List;
import java.util.Locale;
import org.HdrHistogram.Histogram;

/**
 * A report's table as text ({@code table.txt}, and what the console shows): one row per get mode, then the puts. A
 * figure with nothing to measure (no put in the window, no successful get to count hops of) is a dash, never NaN.
 */
final class ReportTable {

    private ReportTable() {
    }

    /** The table of {@code figures}, the get modes of {@code window}, with the window's puts below them. */
    static String of(RunWindow window, List<ModeFigures> figures) {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "window %.1f s .. %.1f s of the run; latency in ms from the intended "
                + "start (corrected); 'unc p99' from the send%n", window.from(), window.to()));
        b.append(String.format(Locale.ROOT, "%-18s %9s %8s %8s %8s %8s %8s %8s %7s %7s %7s %7s %6s %7s %8s%n",
                "mode", "gets", "p50", "p90", "p99", "p99.9", "max", "unc p99", "timeout", "error", "wrong",
                "err %", "hops", "msgs", "bytes"));
        for (ModeFigures f : figures) {
            b.append(String.format(Locale.ROOT, "%-18s %9d %8s %8s %8s %8s %8s %8s %7d %7d %7d %7.3f %6s %7s %8s%n",
                    f.mode(), f.gets(), cell(f.p50Ms(), 2), cell(f.p90Ms(), 2), cell(f.p99Ms(), 2),
                    cell(f.p999Ms(), 2), cell(f.maxMs(), 1), cell(f.uncorrectedP99Ms(), 2), f.timeout(), f.error(),
                    f.wrong(), f.gets() == 0 ? 0.0 : 100.0 * f.failures() / f.gets(), cell(f.hopsPerGet(), 2),
                    cell(f.messagesPerGet(), 2), cell(f.bytesPerGet(), 0)));
        }
        long[] p = window.counts("put/put");
        Histogram puts = window.merged(RunLog.PUT_TAG);
        b.append(String.format(Locale.ROOT, "%-18s %9d %8s %8s %8s %8s %8s %8s %7d %7d %7s%n", "put",
                puts.getTotalCount(), cell(ModeFigures.ms(puts, 50), 2), cell(ModeFigures.ms(puts, 90), 2),
                cell(ModeFigures.ms(puts, 99), 2), cell(ModeFigures.ms(puts, 99.9), 2),
                cell(ModeFigures.maxMs(puts), 1), "", p[1], p[2], ""));
        b.append("hops, msgs, bytes: per successful get, as the answers reported them (the answering copy's in-band "
                + "count); the nodes' own counters are in summary.json under \"nodes\"\n");
        return b.toString();
    }

    /** {@code value} with {@code decimals} decimals, or a dash when there was nothing to measure (NaN). */
    private static String cell(double value, int decimals) {
        return Double.isNaN(value) ? "-" : String.format(Locale.ROOT, "%." + decimals + "f", value);
    }
}
