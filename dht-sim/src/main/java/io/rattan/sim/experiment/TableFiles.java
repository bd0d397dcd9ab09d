package io.rattan.sim.experiment;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * The table as JSON and CSV; fixed formatting, so that one seed gives the same bytes. {@code ./rattan bench table}
 * writes its rows with it too, so that a real row and a simulated one read the same way.
 */
public final class TableFiles {

    private TableFiles() {
    }

    /** The rows as a JSON array, one object per line. */
    public static String json(List<OpenDhtTable.Row> rows) {
        StringBuilder b = new StringBuilder("[\n");
        for (int i = 0; i < rows.size(); i++) {
            OpenDhtTable.Row r = rows.get(i);
            b.append(String.format(Locale.ROOT, "  {\"mode\": \"%s\", \"gets\": %d, \"p50_ms\": %.3f, \"p90_ms\": %.3f, "
                    + "\"p99_ms\": %.3f, \"p999_ms\": %.3f, \"msgs_per_get\": %s, \"bytes_per_get\": %s, "
                    + "\"failed\": %d, \"hedges\": %d}%s%n", r.mode(), r.gets(), r.p50Ms(), r.p90Ms(), r.p99Ms(),
                    r.p999Ms(), number(r.msgsPerGet(), "null"), number(r.bytesPerGet(), "null"), r.failed(),
                    r.hedges(), i + 1 < rows.size() ? "," : ""));
        }
        return b.append("]\n").toString();
    }

    /** Writes {@link #json} to {@code file}. */
    public static void writeJson(List<OpenDhtTable.Row> rows, Path file) throws IOException {
        Files.writeString(file, json(rows));
    }

    /** Writes the rows as CSV with a header line; the oracle's cost columns empty. */
    public static void writeCsv(List<OpenDhtTable.Row> rows, Path file) throws IOException {
        try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(file))) {
            w.println("mode,gets,p50_ms,p90_ms,p99_ms,p999_ms,msgs_per_get,bytes_per_get,failed,hedges");
            for (OpenDhtTable.Row r : rows) {
                w.printf(Locale.ROOT, "%s,%d,%.3f,%.3f,%.3f,%.3f,%s,%s,%d,%d%n", r.mode(), r.gets(), r.p50Ms(),
                        r.p90Ms(), r.p99Ms(), r.p999Ms(), number(r.msgsPerGet(), ""), number(r.bytesPerGet(), ""),
                        r.failed(), r.hedges());
            }
        }
    }

    private static String number(Double d, String absent) {
        return d == null ? absent : String.format(Locale.ROOT, "%.3f", d);
    }
}
