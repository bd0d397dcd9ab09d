package io.rattan.bench.harness;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.HdrHistogram.EncodableHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogReader;

/**
 * What a run wrote to disk ({@code run.json}, {@code latency.hlog}, {@code counts.csv}), read for one time window
 * in seconds since the run began: each mode's corrected and uncorrected latencies, the counts of each operation,
 * and the interval histograms by tag with their times. An interval belongs to the window when its middle does.
 * Read once, then only read from; one thread.
 */
final class RunWindow {

    /** One interval histogram of the log, at its middle, in seconds since the run began. */
    record Interval(double atSeconds, Histogram histogram) {
    }

    /** counts.csv's columns after start, end, op and mode: the outcomes, then hops, messages, bytes. */
    private static final int COUNT_COLUMNS = 7;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path runDir;
    private final JsonNode run;
    private final double from;
    /** The window's end; after reading, never past the last interval logged (a killed run has no load end). */
    private double to;
    private double lastEndSeconds;
    private final List<String> modes = new ArrayList<>();
    private final Map<String, Histogram> corrected = new LinkedHashMap<>();
    private final Map<String, Histogram> uncorrected = new LinkedHashMap<>();
    private final Map<String, long[]> counts = new LinkedHashMap<>();
    private final Map<String, List<Interval>> intervals = new LinkedHashMap<>();

    private RunWindow(Path runDir, JsonNode run, Double fromSeconds, Double toSeconds) {
        this.runDir = runDir;
        this.run = run;
        double loadStart = run.path("loadStartSeconds").asDouble(0);
        double loadEnd = run.path("loadEndSeconds").asDouble(Double.MAX_VALUE);
        this.from = fromSeconds != null ? fromSeconds : loadStart + run.path("warmupSeconds").asDouble(0);
        this.to = toSeconds != null ? toSeconds : loadEnd;
        for (JsonNode m : run.path("modes")) {
            modes.add(m.asText());
            corrected.put(m.asText(), newHistogram());
            uncorrected.put(m.asText(), newHistogram());
        }
    }

    /** Reads the run in {@code runDir} for [from, to] (null: from the end of the warm-up, to the end of the load). */
    static RunWindow read(Path runDir, Double fromSeconds, Double toSeconds) throws IOException {
        Path runJson = runDir.resolve(RunReport.RUN_JSON);
        if (!Files.isRegularFile(runJson)) {
            throw new FileNotFoundException(runJson + " not found: is " + runDir + " the --out of a bench run?");
        }
        RunWindow w = new RunWindow(runDir, JSON.readTree(runJson.toFile()), fromSeconds, toSeconds);
        w.readLatencyLog();
        w.to = Math.min(w.to, w.lastEndSeconds);
        w.readCounts();
        return w;
    }

    /** What {@code run.json} holds: the run's command, target, load and thresholds. */
    JsonNode run() {
        return run;
    }

    double from() {
        return from;
    }

    double to() {
        return to;
    }

    /** How often the run wrote an interval, in seconds. */
    double intervalSeconds() {
        return run.path("intervalSeconds").asDouble(1);
    }

    /** The get modes of the run, in the order it ran them. */
    List<String> modes() {
        return modes;
    }

    /** The corrected latencies of {@code mode}'s gets in the window. */
    Histogram corrected(String mode) {
        return corrected.get(mode);
    }

    /** The uncorrected latencies (from the send) of {@code mode}'s gets in the window. */
    Histogram uncorrected(String mode) {
        return uncorrected.get(mode);
    }

    /** The window's counts of {@code op/mode} (e.g. {@code get/greedy}, {@code put/put}), zeros if none. */
    long[] counts(String opAndMode) {
        return counts.getOrDefault(opAndMode, new long[COUNT_COLUMNS]);
    }

    /** Every latency of the window logged under {@code tag}, in one histogram. */
    Histogram merged(String tag) {
        Histogram all = newHistogram();
        for (Interval i : intervals.getOrDefault(tag, List.of())) {
            all.add(i.histogram());
        }
        return all;
    }

    /** The window's intervals under {@code tag} merged into buckets of {@code bucketSeconds}, by bucket middle. */
    Map<Double, Histogram> bucketed(String tag, double bucketSeconds) {
        Map<Double, Histogram> out = new TreeMap<>();
        for (Interval i : intervals.getOrDefault(tag, List.of())) {
            double key = Math.floor(i.atSeconds() / bucketSeconds) * bucketSeconds + bucketSeconds / 2;
            out.computeIfAbsent(key, k -> newHistogram()).add(i.histogram());
        }
        return out;
    }

    private static Histogram newHistogram() {
        return new Histogram(OpStats.LATENCY_MICROS_MAX, OpStats.SIGNIFICANT_DIGITS);
    }

    private void readLatencyLog() throws IOException {
        HistogramLogReader reader = new HistogramLogReader(runDir.resolve(RunLog.LATENCY_LOG).toFile());
        List<Histogram> all = new ArrayList<>();
        EncodableHistogram e;
        while ((e = reader.nextIntervalHistogram()) != null) {
            if (e instanceof Histogram) {
                all.add((Histogram) e);
            }
        }
        // The log's own start time is the zero of counts.csv too; run.json's is a fallback for a log without one.
        long startMillis = reader.getStartTimeSec() > 0 ? Math.round(reader.getStartTimeSec() * 1000)
                : run.path("startMillis").asLong();
        for (Histogram h : all) {
            double start = (h.getStartTimeStamp() - startMillis) / 1000.0;
            double end = (h.getEndTimeStamp() - startMillis) / 1000.0;
            double mid = (start + end) / 2;
            lastEndSeconds = Math.max(lastEndSeconds, end);
            if (mid < from || mid > to) {
                continue;
            }
            String tag = h.getTag() == null ? "" : h.getTag();
            intervals.computeIfAbsent(tag, t -> new ArrayList<>()).add(new Interval(mid, h));
            addToMode(tag, h);
        }
    }

    private void addToMode(String tag, Histogram h) {
        Histogram acc = null;
        if (tag.startsWith(RunLog.GET_TAG)) {
            acc = corrected.get(tag.substring(RunLog.GET_TAG.length()));
        } else if (tag.startsWith(RunLog.GET_UNCORRECTED_TAG)) {
            acc = uncorrected.get(tag.substring(RunLog.GET_UNCORRECTED_TAG.length()));
        }
        if (acc != null) {
            acc.add(h);
        }
    }

    private void readCounts() throws IOException {
        List<String> lines = Files.readAllLines(runDir.resolve(RunLog.COUNTS_CSV), StandardCharsets.UTF_8);
        for (String line : lines.subList(Math.min(1, lines.size()), lines.size())) {
            String[] f = line.split(",");
            if (f.length != 4 + COUNT_COLUMNS) {
                continue;
            }
            double mid = (Double.parseDouble(f[0]) + Double.parseDouble(f[1])) / 2;
            if (mid < from || mid > to) {
                continue;
            }
            long[] c = counts.computeIfAbsent(f[2] + "/" + f[3], k -> new long[COUNT_COLUMNS]);
            for (int i = 0; i < COUNT_COLUMNS; i++) {
                c[i] += Long.parseLong(f[4 + i]);
            }
        }
    }
}
