package io.rattan.bench.harness;

import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import org.HdrHistogram.Histogram;

/**
 * The line a running harness prints every few seconds: elapsed and remaining time, the get rate, and p50/p99 of
 * each mode over the lines' interval (corrected latencies). Ticker thread only.
 */
final class LiveLine {

    private final PrintStream out;
    private final List<String> modes;
    private final Duration duration;
    private final long everyNanos;
    private final Histogram[] acc;
    private volatile long loadStartNanos = Long.MIN_VALUE;
    private long lastPrintNanos;

    LiveLine(PrintStream out, List<String> modes, Duration duration, Duration every) {
        this.out = out;
        this.modes = List.copyOf(modes);
        this.duration = duration;
        this.everyNanos = every.toNanos();
        this.acc = new Histogram[modes.size()];
        for (int i = 0; i < acc.length; i++) {
            acc[i] = new Histogram(OpStats.LATENCY_MICROS_MAX, OpStats.SIGNIFICANT_DIGITS);
        }
    }

    /** From now on the line counts elapsed time; before, it prints nothing. */
    void loadStarted(long nanos) {
        loadStartNanos = nanos;
        lastPrintNanos = nanos;
    }

    void add(List<Histogram> perMode, long nowNanos) {
        if (loadStartNanos == Long.MIN_VALUE) {
            return;
        }
        for (int i = 0; i < acc.length; i++) {
            acc[i].add(perMode.get(i));
        }
        if (nowNanos - lastPrintNanos < everyNanos) {
            return;
        }
        long total = 0;
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < acc.length; i++) {
            total += acc[i].getTotalCount();
            b.append(String.format(Locale.ROOT, " | %s %.1f/%.1f", modes.get(i),
                    acc[i].getValueAtPercentile(50) / 1000.0, acc[i].getValueAtPercentile(99) / 1000.0));
            acc[i].reset();
        }
        double seconds = (nowNanos - lastPrintNanos) / 1e9;
        long elapsed = (nowNanos - loadStartNanos) / 1_000_000_000L;
        long left = Math.max(0, duration.toSeconds() - elapsed);
        out.println(String.format(Locale.ROOT, "[%s elapsed, %s left] %.0f gets/s, p50/p99 ms:", clock(elapsed),
                clock(left), total / seconds) + b);
        out.flush();
        lastPrintNanos = nowNanos;
    }

    static String clock(long seconds) {
        return String.format(Locale.ROOT, "%d:%02d:%02d", seconds / 3600, seconds / 60 % 60, seconds % 60);
    }
}
