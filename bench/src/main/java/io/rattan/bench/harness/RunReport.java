package io.rattan.bench.harness;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;

/**
 * Builds a run's report from what the run wrote to disk ({@code run.json}, {@code latency.hlog},
 * {@code counts.csv}, {@code metrics/}), for any time window: {@code table.txt}, {@code summary.json},
 * {@code latency-cdf.png}, {@code p99-over-time.png}, {@code throughput.png} and a self-contained
 * {@code report.html}. The run itself ends by calling it, so a run's report and a rebuilt one are made the same way.
 *
 * <p>Latencies in the table are the corrected ones (from the intended start); the uncorrected p99 stands beside
 * them. {@code hops}, {@code msgs} and {@code bytes} per get are what the answers reported (the answering copy's
 * in-band count, see {@code Cost}); the nodes' own counters (all copies, all modes, maintenance included) are in
 * the summary's {@code nodes} section. Reading is {@link RunWindow}'s job, the parts are {@link ReportTable}'s,
 * {@link NodeCounters}' and {@link ReportPlots}'; this class checks the thresholds and writes the files.
 */
final class RunReport {

    static final String RUN_JSON = "run.json";
    static final String SUMMARY_JSON = "summary.json";
    static final String TABLE_TXT = "table.txt";
    static final String HTML = "report.html";
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private final Path runDir;
    private final RunWindow window;

    /** The report's outcome: the per-mode figures, and every threshold the run named that was missed. */
    record Outcome(List<ModeFigures> modes, List<String> missed) {
    }

    private RunReport(Path runDir, RunWindow window) {
        this.runDir = runDir;
        this.window = window;
    }

    /** Builds every file of the report for the window [from, to] (null: after the warm-up, to the end). */
    static Outcome write(Path runDir, Double fromSeconds, Double toSeconds, PrintStream out) throws IOException {
        return new RunReport(runDir, RunWindow.read(runDir, fromSeconds, toSeconds)).writeAll(out);
    }

    private Outcome writeAll(PrintStream out) throws IOException {
        List<ModeFigures> figures = new ArrayList<>();
        for (String m : window.modes()) {
            figures.add(ModeFigures.of(window, m));
        }
        List<String> missed = missedThresholds(figures);
        String table = ReportTable.of(window, figures);
        Files.writeString(runDir.resolve(TABLE_TXT), table, StandardCharsets.UTF_8);
        ObjectNode summary = summary(figures, missed);
        JSON.writeValue(runDir.resolve(SUMMARY_JSON).toFile(), summary);
        ReportPlots.write(window, runDir);
        writeHtml(table, summary);
        out.print(table);
        for (String m : missed) {
            out.println("THRESHOLD MISSED: " + m);
        }
        out.println("report: " + runDir.resolve(HTML));
        out.flush();
        return new Outcome(figures, missed);
    }

    private List<String> missedThresholds(List<ModeFigures> figures) {
        List<String> missed = new ArrayList<>();
        JsonNode t = window.run().path("thresholds");
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

    private ObjectNode summary(List<ModeFigures> figures, List<String> missed) throws IOException {
        ObjectNode s = JSON.createObjectNode();
        s.set("run", window.run());
        ObjectNode w = s.putObject("window");
        w.put("fromSeconds", window.from());
        w.put("toSeconds", window.to());
        ArrayNode ms = s.putArray("modes");
        for (ModeFigures f : figures) {
            ms.add(JSON.valueToTree(f));
        }
        long[] p = window.counts("put/put");
        ObjectNode puts = s.putObject("puts");
        puts.put("success", p[0]);
        puts.put("timeout", p[1]);
        puts.put("error", p[2]);
        s.set("nodes", NodeCounters.read(runDir));
        ArrayNode m = s.putArray("thresholdsMissed");
        missed.forEach(m::add);
        return s;
    }

    private void writeHtml(String table, ObjectNode summary) throws IOException {
        StringBuilder b = new StringBuilder();
        b.append("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Rattan bench report</title>\n")
                .append("<style>body{font-family:sans-serif;margin:2em}pre{background:#f6f6f6;padding:1em;")
                .append("overflow-x:auto}img{max-width:100%;display:block;margin:1em 0}</style></head><body>\n")
                .append("<h1>Rattan bench report</h1>\n<p>").append(escape(runDir.toAbsolutePath().toString()))
                .append("</p>\n<h2>Latency and errors per mode</h2>\n<pre>").append(escape(table)).append("</pre>\n");
        for (String png : ReportPlots.FILES) {
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
