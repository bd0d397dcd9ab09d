package io.rattan.bench.harness;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.HdrHistogram.EncodableHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;
import org.HdrHistogram.HistogramLogReader;

/**
 * Builds a run's report from what the run wrote to disk ({@code run.json}, {@code latency.hlog},
 * {@code counts.csv}, {@code metrics/}), for any time window: {@code table.txt}, {@code summary.json},
 * {@code latency-cdf.png}, {@code p99-over-time.png}, {@code throughput.png} and a self-contained
 * {@code report.html}. The run itself ends by calling it, so a run's report and a rebuilt one are made the same way.
 *
 * <p>Latencies in the table are the corrected ones (from the intended start); the uncorrected p99 stands beside
 * them. {@code hops}, {@code msgs} and {@code bytes} per get are what the answers reported (the answering copy's
 * in-band count, see {@code Cost}); the nodes' own counters (all copies, all modes, maintenance included) are in
 * the summary's {@code nodes} section.
 */
final class RunReport {

    static final String RUN_JSON = "run.json";
    static final String SUMMARY_JSON = "summary.json";
    static final String TABLE_TXT = "table.txt";
    static final String HTML = "report.html";
    static final String[] PLOTS = {"latency-cdf.png", "p99-over-time.png", "throughput.png"};
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    private static final int TIME_POINTS_MAX = 300;

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
    /** Interval histograms in the window, by tag, with their middle time in seconds from the run's start. */
    private final Map<String, List<Timed>> intervals = new LinkedHashMap<>();

    private record Timed(double atSeconds, double lengthSeconds, Histogram histogram) {
    }

    /** A mode's figures in the window. */
    record ModeFigures(String mode, long gets, double p50Ms, double p90Ms, double p99Ms, double p999Ms,
                       double maxMs, double uncorrectedP99Ms, long success, long timeout, long error, long wrong,
                       double hopsPerGet, double messagesPerGet, double bytesPerGet) {
        long failures() {
            return timeout + error + wrong;
        }
    }

    /** The report's outcome: the per-mode figures, and every threshold the run named that was missed. */
    record Outcome(List<ModeFigures> modes, List<String> missed) {
    }

    private RunReport(Path runDir, Double fromSeconds, Double toSeconds) throws IOException {
        this.runDir = runDir;
        Path runJson = runDir.resolve(RUN_JSON);
        if (!Files.isRegularFile(runJson)) {
            throw new FileNotFoundException(runJson + " not found: is " + runDir + " the --out of a bench run?");
        }
        this.run = JSON.readTree(runJson.toFile());
        double loadStart = run.path("loadStartSeconds").asDouble(0);
        double loadEnd = run.path("loadEndSeconds").asDouble(Double.MAX_VALUE);
        this.from = fromSeconds != null ? fromSeconds : loadStart + run.path("warmupSeconds").asDouble(0);
        this.to = toSeconds != null ? toSeconds : loadEnd;
        for (JsonNode m : run.path("modes")) {
            modes.add(m.asText());
            corrected.put(m.asText(), newHistogram());
            uncorrected.put(m.asText(), newHistogram());
        }
        readLatencyLog();
        to = Math.min(to, lastEndSeconds);
        readCounts();
    }

    /** Builds every file of the report for the window [from, to] (null: after the warm-up, to the end). */
    static Outcome write(Path runDir, Double fromSeconds, Double toSeconds, PrintStream out) throws IOException {
        return new RunReport(runDir, fromSeconds, toSeconds).writeAll(out);
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
            intervals.computeIfAbsent(tag, t -> new ArrayList<>()).add(new Timed(mid, end - start, h));
            if (tag.startsWith(RunLog.GET_TAG)) {
                Histogram acc = corrected.get(tag.substring(RunLog.GET_TAG.length()));
                if (acc != null) {
                    acc.add(h);
                }
            } else if (tag.startsWith(RunLog.GET_UNCORRECTED_TAG)) {
                Histogram acc = uncorrected.get(tag.substring(RunLog.GET_UNCORRECTED_TAG.length()));
                if (acc != null) {
                    acc.add(h);
                }
            }
        }
    }

    private void readCounts() throws IOException {
        List<String> lines = Files.readAllLines(runDir.resolve(RunLog.COUNTS_CSV), StandardCharsets.UTF_8);
        for (String line : lines.subList(Math.min(1, lines.size()), lines.size())) {
            String[] f = line.split(",");
            if (f.length != 11) {
                continue;
            }
            double mid = (Double.parseDouble(f[0]) + Double.parseDouble(f[1])) / 2;
            if (mid < from || mid > to) {
                continue;
            }
            long[] c = counts.computeIfAbsent(f[2] + "/" + f[3], k -> new long[7]);
            for (int i = 0; i < 7; i++) {
                c[i] += Long.parseLong(f[4 + i]);
            }
        }
    }

    private Outcome writeAll(PrintStream out) throws IOException {
        List<ModeFigures> figures = new ArrayList<>();
        for (String m : modes) {
            figures.add(figures(m));
        }
        List<String> missed = missedThresholds(figures);
        String table = table(figures);
        Files.writeString(runDir.resolve(TABLE_TXT), table, StandardCharsets.UTF_8);
        ObjectNode summary = summary(figures, missed);
        JSON.writeValue(runDir.resolve(SUMMARY_JSON).toFile(), summary);
        writePlots();
        writeHtml(table, summary);
        out.print(table);
        for (String m : missed) {
            out.println("THRESHOLD MISSED: " + m);
        }
        out.println("report: " + runDir.resolve(HTML));
        out.flush();
        return new Outcome(figures, missed);
    }

    private ModeFigures figures(String mode) {
        Histogram h = corrected.get(mode);
        long[] c = counts.getOrDefault("get/" + mode, new long[7]);
        long ok = c[0];
        return new ModeFigures(mode, h.getTotalCount(), ms(h, 50), ms(h, 90), ms(h, 99), ms(h, 99.9),
                h.getTotalCount() == 0 ? Double.NaN : h.getMaxValue() / 1000.0, ms(uncorrected.get(mode), 99), ok,
                c[1], c[2], c[3], per(c[4], ok), per(c[5], ok), per(c[6], ok));
    }

    private static double ms(Histogram h, double percentile) {
        return h.getTotalCount() == 0 ? Double.NaN : h.getValueAtPercentile(percentile) / 1000.0;
    }

    private static double per(long total, long n) {
        return n == 0 ? Double.NaN : (double) total / n;
    }

    private List<String> missedThresholds(List<ModeFigures> figures) {
        List<String> missed = new ArrayList<>();
        JsonNode t = run.path("thresholds");
        for (ModeFigures f : figures) {
            check(missed, f, "p50", f.p50Ms(), t.path("maxP50Ms"));
            check(missed, f, "p99", f.p99Ms(), t.path("maxP99Ms"));
            check(missed, f, "p99.9", f.p999Ms(), t.path("maxP999Ms"));
            JsonNode share = t.path("maxErrorShare");
            if (share.isNumber() && f.gets() > 0 && (double) f.failures() / f.gets() > share.asDouble()) {
                missed.add(String.format(Locale.ROOT, "%s: %.4f of gets failed, above --max-error-share %s",
                        f.mode(), (double) f.failures() / f.gets(), share.asText()));
            }
        }
        return missed;
    }

    private static void check(List<String> missed, ModeFigures f, String what, double valueMs, JsonNode limit) {
        if (limit.isNumber() && !(valueMs <= limit.asDouble())) {
            missed.add(String.format(Locale.ROOT, "%s: %s %.1f ms, above --max-%s %s ms", f.mode(), what, valueMs,
                    what.replace(".", ""), limit.asText()));
        }
    }

    private String table(List<ModeFigures> figures) {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "window %.1f s .. %.1f s of the run; latency in ms from the intended "
                + "start (corrected); 'unc p99' from the send%n", from, to));
        b.append(String.format(Locale.ROOT, "%-18s %9s %8s %8s %8s %8s %8s %8s %7s %7s %7s %7s %6s %7s %8s%n",
                "mode", "gets", "p50", "p90", "p99", "p99.9", "max", "unc p99", "timeout", "error", "wrong",
                "err %", "hops", "msgs", "bytes"));
        for (ModeFigures f : figures) {
            b.append(String.format(Locale.ROOT,
                    "%-18s %9d %8.2f %8.2f %8.2f %8.2f %8.1f %8.2f %7d %7d %7d %7.3f %6.2f %7.2f %8.0f%n",
                    f.mode(), f.gets(), f.p50Ms(), f.p90Ms(), f.p99Ms(), f.p999Ms(), f.maxMs(),
                    f.uncorrectedP99Ms(), f.timeout(), f.error(), f.wrong(),
                    f.gets() == 0 ? 0.0 : 100.0 * f.failures() / f.gets(), f.hopsPerGet(), f.messagesPerGet(),
                    f.bytesPerGet()));
        }
        long[] p = counts.getOrDefault("put/put", new long[7]);
        Histogram puts = newHistogram();
        for (Timed t : intervals.getOrDefault(RunLog.PUT_TAG, List.of())) {
            puts.add(t.histogram());
        }
        b.append(String.format(Locale.ROOT, "%-18s %9d %8.2f %8.2f %8.2f %8.2f %8.1f %8s %7d %7d %7s%n", "put",
                puts.getTotalCount(), ms(puts, 50), ms(puts, 90), ms(puts, 99), ms(puts, 99.9),
                puts.getTotalCount() == 0 ? Double.NaN : puts.getMaxValue() / 1000.0, "", p[1], p[2], ""));
        b.append("hops, msgs, bytes: per successful get, as the answers reported them (the answering copy's in-band "
                + "count); the nodes' own counters are in summary.json under \"nodes\"\n");
        return b.toString();
    }

    private ObjectNode summary(List<ModeFigures> figures, List<String> missed) throws IOException {
        ObjectNode s = JSON.createObjectNode();
        s.set("run", run);
        ObjectNode window = s.putObject("window");
        window.put("fromSeconds", from);
        window.put("toSeconds", to);
        ArrayNode ms = s.putArray("modes");
        for (ModeFigures f : figures) {
            ms.add(JSON.valueToTree(f));
        }
        long[] p = counts.getOrDefault("put/put", new long[7]);
        ObjectNode puts = s.putObject("puts");
        puts.put("success", p[0]);
        puts.put("timeout", p[1]);
        puts.put("error", p[2]);
        s.set("nodes", nodes());
        ArrayNode m = s.putArray("thresholdsMissed");
        missed.forEach(m::add);
        return s;
    }

    /**
     * The nodes' counters between the scrapes before and after the load: gets and puts each node served as
     * gateway (every copy counts), messages and peer bytes all nodes sent (maintenance included), and each node's
     * stored records at the end.
     */
    private JsonNode nodes() throws IOException {
        ObjectNode n = JSON.createObjectNode();
        Path dir = runDir.resolve(NodeScrape.DIR);
        if (!Files.isDirectory(dir)) {
            n.put("note", "no node metrics were scraped (no HTTP address of the nodes was known)");
            return n;
        }
        List<double[]> perNode = new ArrayList<>();
        double messages = 0;
        double peerBytes = 0;
        int count = 0;
        try (var files = Files.list(dir)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                String name = f.getFileName().toString();
                if (name.startsWith("start-") && name.endsWith(".prom")) {
                    count = Math.max(count, Integer.parseInt(name.substring(6, name.length() - 5)) + 1);
                }
            }
        }
        for (int i = 0; i < count; i++) {
            Path start = dir.resolve("start-" + i + ".prom");
            Path end = dir.resolve("end-" + i + ".prom");
            if (!Files.exists(start) || !Files.exists(end)) {
                continue;
            }
            Map<String, Double> a = NodeScrape.parse(Files.readString(start, StandardCharsets.UTF_8));
            Map<String, Double> b = NodeScrape.parse(Files.readString(end, StandardCharsets.UTF_8));
            double gets = delta(a, b, "rattan_gateway_requests_seconds_count", "op=\"get\"");
            double putsServed = delta(a, b, "rattan_gateway_requests_seconds_count", "op=\"put\"");
            double stored = NodeScrape.sum(b, "rattan_store_records");
            perNode.add(new double[] {i, gets, putsServed, stored});
            messages += delta(a, b, "rattan_messages_sent_total");
            peerBytes += delta(a, b, "rattan_transport_bytes_sent_total", "protocol=\"peer\"");
        }
        double gets = 0;
        double puts = 0;
        ArrayNode nodes = n.putArray("perNode");
        for (double[] p : perNode) {
            ObjectNode o = nodes.addObject();
            o.put("node", (int) p[0]);
            o.put("getsServed", (long) p[1]);
            o.put("putsServed", (long) p[2]);
            o.put("storedRecords", (long) p[3]);
            gets += p[1];
            puts += p[2];
        }
        n.put("nodesScraped", perNode.size());
        n.put("getsServed", (long) gets);
        n.put("putsServed", (long) puts);
        n.put("messagesSent", (long) messages);
        n.put("peerBytesSent", (long) peerBytes);
        n.put("messagesPerRequest", gets + puts == 0 ? Double.NaN : messages / (gets + puts));
        n.put("peerBytesPerRequest", gets + puts == 0 ? Double.NaN : peerBytes / (gets + puts));
        n.set("requestsServedPerNode", spread(perNode, 1, 2));
        n.set("storedRecordsPerNode", spread(perNode, 3, 3));
        n.put("note", "between the scrapes before and after the load (warm-up included, not sliced by --from/--to); "
                + "requests served count every copy a node served as gateway; messages and bytes include "
                + "maintenance traffic");
        return n;
    }

    private static double delta(Map<String, Double> a, Map<String, Double> b, String name, String... labels) {
        return NodeScrape.sum(b, name, labels) - NodeScrape.sum(a, name, labels);
    }

    /** min, mean, max and max/mean of columns c1 (+ c2 when different) over the nodes. */
    private ObjectNode spread(List<double[]> perNode, int c1, int c2) {
        ObjectNode o = JSON.createObjectNode();
        if (perNode.isEmpty()) {
            return o;
        }
        double min = Double.MAX_VALUE;
        double max = 0;
        double sum = 0;
        for (double[] p : perNode) {
            double v = p[c1] + (c2 != c1 ? p[c2] : 0);
            min = Math.min(min, v);
            max = Math.max(max, v);
            sum += v;
        }
        double mean = sum / perNode.size();
        o.put("min", min);
        o.put("mean", mean);
        o.put("max", max);
        o.put("maxOverMean", mean == 0 ? Double.NaN : max / mean);
        return o;
    }

    private void writePlots() throws IOException {
        LinePlot cdf = new LinePlot("Get latency by percentile (corrected)", "percentile",
                LinePlot.Scale.LOG_PERCENTILE, "latency (ms)", LinePlot.Scale.LOG);
        for (String m : modes) {
            Histogram h = corrected.get(m);
            List<double[]> pts = new ArrayList<>();
            long seen = 0;
            long total = h.getTotalCount();
            for (HistogramIterationValue v : h.recordedValues()) {
                seen += v.getCountAtValueIteratedTo();
                // The largest sample sits at 1 - 1/n, not at 100 %, which a log percentile axis cannot show.
                double q = seen == total ? 1 - 1.0 / total : (double) seen / total;
                pts.add(new double[] {100.0 * q, h.highestEquivalentValue(v.getValueIteratedTo()) / 1000.0});
            }
            cdf.add(series(m, pts));
        }
        cdf.write(runDir.resolve(PLOTS[0]));

        double bucket = bucketSeconds();
        LinePlot p99 = new LinePlot("Get p99 over time (corrected)", "seconds since the run began",
                LinePlot.Scale.LINEAR, "p99 (ms)", LinePlot.Scale.LOG);
        LinePlot rate = new LinePlot("Throughput", "seconds since the run began", LinePlot.Scale.LINEAR,
                "operations per second", LinePlot.Scale.LINEAR);
        Map<Double, double[]> allGets = new TreeMap<>();
        for (String m : modes) {
            List<double[]> pts = new ArrayList<>();
            for (Map.Entry<Double, Histogram> e : bucketed(RunLog.GET_TAG + m, bucket).entrySet()) {
                Histogram h = e.getValue();
                if (h.getTotalCount() > 0) {
                    pts.add(new double[] {e.getKey(), h.getValueAtPercentile(99) / 1000.0});
                }
                allGets.computeIfAbsent(e.getKey(), k -> new double[1])[0] += h.getTotalCount() / bucket;
            }
            p99.add(series(m, pts));
        }
        List<double[]> getRate = new ArrayList<>();
        allGets.forEach((t, v) -> getRate.add(new double[] {t, v[0]}));
        rate.add(series("gets", getRate));
        List<double[]> putRate = new ArrayList<>();
        bucketed(RunLog.PUT_TAG, bucket).forEach((t, h) -> putRate.add(new double[] {t, h.getTotalCount() / bucket}));
        rate.add(series("puts", putRate));
        p99.write(runDir.resolve(PLOTS[1]));
        rate.write(runDir.resolve(PLOTS[2]));
    }

    /** Long windows are merged into at most {@link #TIME_POINTS_MAX} points, never finer than one interval. */
    private double bucketSeconds() {
        double interval = run.path("intervalSeconds").asDouble(1);
        return Math.max(interval, Math.ceil((to - from) / TIME_POINTS_MAX / interval) * interval);
    }

    private Map<Double, Histogram> bucketed(String tag, double bucket) {
        Map<Double, Histogram> out = new TreeMap<>();
        for (Timed t : intervals.getOrDefault(tag, List.of())) {
            double key = Math.floor(t.atSeconds() / bucket) * bucket + bucket / 2;
            out.computeIfAbsent(key, k -> newHistogram()).add(t.histogram());
        }
        return out;
    }

    private static LinePlot.Series series(String name, List<double[]> pts) {
        double[] x = new double[pts.size()];
        double[] y = new double[pts.size()];
        for (int i = 0; i < pts.size(); i++) {
            x[i] = pts.get(i)[0];
            y[i] = pts.get(i)[1];
        }
        return new LinePlot.Series(name, x, y);
    }

    private void writeHtml(String table, ObjectNode summary) throws IOException {
        StringBuilder b = new StringBuilder();
        b.append("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Rattan bench report</title>\n")
                .append("<style>body{font-family:sans-serif;margin:2em}pre{background:#f6f6f6;padding:1em;")
                .append("overflow-x:auto}img{max-width:100%;display:block;margin:1em 0}</style></head><body>\n")
                .append("<h1>Rattan bench report</h1>\n<p>").append(escape(runDir.toAbsolutePath().toString()))
                .append("</p>\n<h2>Latency and errors per mode</h2>\n<pre>").append(escape(table)).append("</pre>\n");
        for (String png : PLOTS) {
            byte[] bytes = Files.readAllBytes(runDir.resolve(png));
            b.append("<img alt=\"").append(png).append("\" src=\"data:image/png;base64,")
                    .append(Base64.getEncoder().encodeToString(bytes)).append("\">\n");
        }
        b.append("<h2>summary.json</h2>\n<pre>").append(escape(JSON.writeValueAsString(summary)))
                .append("</pre>\n</body></html>\n");
        Files.writeString(runDir.resolve(HTML), b.toString(), StandardCharsets.UTF_8);
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
