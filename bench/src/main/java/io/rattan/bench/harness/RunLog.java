package io.rattan.bench.harness;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogWriter;

/**
 * Writes a run's measurements to disk as it goes, one interval at a time, so that a killed run loses at most one
 * interval and any time slice can be re-read later ({@link RunReport}):
 *
 * <ul>
 *   <li>{@code latency.hlog}: HdrHistogram's interval log; per interval one histogram (microseconds) per tag:
 *       {@code get/<mode>} (corrected), {@code get-uncorrected/<mode>}, {@code put};</li>
 *   <li>{@code counts.csv}: per interval and operation, the count deltas of each outcome and the hops, messages
 *       and bytes the answers reported.</li>
 * </ul>
 *
 * Only the ticker thread calls {@link #tick}; {@link #close} after the last tick.
 */
final class RunLog implements AutoCloseable {

    static final String LATENCY_LOG = "latency.hlog";
    static final String COUNTS_CSV = "counts.csv";
    static final String COUNTS_HEADER = "start_s,end_s,op,mode,success,timeout,error,wrong,hops,messages,bytes";
    static final String GET_TAG = "get/";
    static final String GET_UNCORRECTED_TAG = "get-uncorrected/";
    static final String PUT_TAG = "put";

    private final long startMillis;
    private final long startNanos;
    private final List<OpStats> gets;
    private final OpStats puts;
    private final PrintStream hlogOut;
    private final HistogramLogWriter hlog;
    private final BufferedWriter csv;
    private final long[][] lastCounts;
    private long lastTickNanos;
    private final LiveLine live;

    RunLog(Path runDir, long startMillis, long startNanos, List<OpStats> gets, OpStats puts, LiveLine live)
            throws IOException {
        this.startMillis = startMillis;
        this.startNanos = startNanos;
        this.gets = List.copyOf(gets);
        this.puts = puts;
        this.live = live;
        this.hlogOut = new PrintStream(Files.newOutputStream(runDir.resolve(LATENCY_LOG)), false,
                StandardCharsets.UTF_8);
        this.hlog = new HistogramLogWriter(hlogOut);
        hlog.outputComment("Rattan bench run; latencies in microseconds; tags: get/<mode> (corrected from the "
                + "intended start), get-uncorrected/<mode>, put");
        hlog.outputLogFormatVersion();
        hlog.outputStartTime(startMillis);
        hlog.setBaseTime(startMillis);
        hlog.outputLegend();
        hlogOut.flush();
        this.csv = Files.newBufferedWriter(runDir.resolve(COUNTS_CSV), StandardCharsets.UTF_8);
        csv.write(COUNTS_HEADER);
        csv.newLine();
        csv.flush();
        this.lastCounts = new long[gets.size() + 1][];
        this.lastTickNanos = startNanos;
    }

    /** Writes everything recorded since the previous tick, stamped with the interval it covers, and flushes. */
    void tick() {
        long now = System.nanoTime();
        long fromMillis = startMillis + (lastTickNanos - startNanos) / 1_000_000;
        long toMillis = startMillis + (now - startNanos) / 1_000_000;
        List<Histogram> liveGets = new ArrayList<>();
        try {
            for (int i = 0; i < gets.size(); i++) {
                OpStats s = gets.get(i);
                Histogram c = s.takeCorrected(null);
                Histogram u = s.takeUncorrected(null);
                write(c, GET_TAG + s.name(), fromMillis, toMillis);
                write(u, GET_UNCORRECTED_TAG + s.name(), fromMillis, toMillis);
                writeCounts(i, "get", s, fromMillis, toMillis);
                liveGets.add(c);
            }
            Histogram p = puts.takeCorrected(null);
            puts.takeUncorrected(null);
            write(p, PUT_TAG, fromMillis, toMillis);
            writeCounts(gets.size(), "put", puts, fromMillis, toMillis);
            hlogOut.flush();
            csv.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        lastTickNanos = now;
        if (live != null) {
            live.add(liveGets, now);
        }
    }

    private void write(Histogram h, String tag, long fromMillis, long toMillis) {
        h.setStartTimeStamp(fromMillis);
        h.setEndTimeStamp(toMillis);
        h.setTag(tag);
        hlog.outputIntervalHistogram(h);
    }

    private void writeCounts(int slot, String op, OpStats s, long fromMillis, long toMillis) throws IOException {
        long[] now = s.counts();
        long[] before = lastCounts[slot] == null ? new long[now.length] : lastCounts[slot];
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "%.3f,%.3f,%s,%s", (fromMillis - startMillis) / 1000.0,
                (toMillis - startMillis) / 1000.0, op, s.name()));
        for (int i = 0; i < now.length; i++) {
            b.append(',').append(now[i] - before[i]);
        }
        csv.write(b.toString());
        csv.newLine();
        lastCounts[slot] = now;
    }

    @Override
    public void close() throws IOException {
        hlogOut.close();
        csv.close();
    }
}
