package io.rattan.bench.harness;

import org.HdrHistogram.Histogram;

/**
 * A get mode's figures in a report's window, as the table and {@code summary.json} show them: corrected latencies
 * in ms (a failed get counted at the timeout at least), the uncorrected p99, the count of each outcome, and per
 * successful get the hops, messages and bytes the answers reported. NaN where nothing was measured.
 */
record ModeFigures(String mode, long gets, double p50Ms, double p90Ms, double p99Ms, double p999Ms, double maxMs,
                   double uncorrectedP99Ms, long success, long timeout, long error, long wrong, double hopsPerGet,
                   double messagesPerGet, double bytesPerGet) {

    long failures() {
        return timeout + error + wrong;
    }

    /** The figures of {@code mode}'s gets in {@code window}. */
    static ModeFigures of(RunWindow window, String mode) {
        Histogram h = window.corrected(mode);
        long[] c = window.counts("get/" + mode);
        long ok = c[0];
        return new ModeFigures(mode, h.getTotalCount(), ms(h, 50), ms(h, 90), ms(h, 99), ms(h, 99.9), maxMs(h),
                ms(window.uncorrected(mode), 99), ok, c[1], c[2], c[3], per(c[4], ok), per(c[5], ok),
                per(c[6], ok));
    }

    /** The latency at {@code percentile} in ms, NaN for an empty histogram. */
    static double ms(Histogram h, double percentile) {
        return h.getTotalCount() == 0 ? Double.NaN : h.getValueAtPercentile(percentile) / 1000.0;
    }

    /** The largest latency in ms, NaN for an empty histogram. */
    static double maxMs(Histogram h) {
        return h.getTotalCount() == 0 ? Double.NaN : h.getMaxValue() / 1000.0;
    }

    private static double per(long total, long n) {
        return n == 0 ? Double.NaN : (double) total / n;
    }
}
