package io.rattan.sim.experiment;

import io.rattan.api.Bytes;
import io.rattan.core.id.NodeKey;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The table as JSON and CSV; fixed formatting, so that one seed gives the same bytes. {@code ./rattan bench table}
 * writes its rows with it too, so that a real row and a simulated one read the same way. And the run's node keys
 * ({@code keys.txt}), which {@code ./rattan cluster start --keys} gives a real cluster.
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

    /**
     * The report line of each mode's p99 over the rounds whose own gateway was not slow when they started (the oracle,
     * the last row, left out), as the simulator and {@code bench table} both print it, with a line break.
     */
    public static String healthyGatewayLine(List<OpenDhtTable.Row> rows, List<Double> p99Ms, long rounds) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < rows.size() - 1; i++) {
            b.append(i == 0 ? "" : ", ").append(rows.get(i).mode())
                    .append(String.format(Locale.ROOT, " %.0f", p99Ms.get(i)));
        }
        return String.format(Locale.ROOT, "p99 over the %d rounds whose own gateway was not slow when they started: %s%n",
                rounds, b);
    }

    /**
     * Writes node i's private key on line i (64 hex digits: its seed), after a comment line. The keys of a
     * simulation's nodes, for a trial cluster that must route as the simulation did: never a cluster's own.
     */
    public static void writeKeys(List<NodeKey> keys, Path file) throws IOException {
        StringBuilder b = new StringBuilder("# node keys (Ed25519 seeds; the id is SHA-1 of the public key), node i on "
                + "line i (after this one)\n");
        for (NodeKey key : keys) {
            b.append(key.seed().toHex()).append('\n');
        }
        Files.writeString(file, b.toString(), StandardCharsets.US_ASCII);
    }

    /**
     * Reads a file of {@link #writeKeys}: one key per line, blank lines and lines starting with {@code #} skipped; an
     * {@link IOException} names the line that is not a key.
     */
    public static List<NodeKey> readKeys(Path file) throws IOException {
        List<NodeKey> keys = new ArrayList<>();
        List<String> lines = Files.readAllLines(file, StandardCharsets.US_ASCII);
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            try {
                if (line.length() != 2 * NodeKey.SEED_BYTES) {
                    throw new IllegalArgumentException("not 64 digits");
                }
                keys.add(NodeKey.ofSeed(Bytes.fromHex(line)));
            } catch (IllegalArgumentException e) {
                throw new IOException(file + " line " + (i + 1) + " is not a node key (64 hex digits)", e);
            }
        }
        return keys;
    }

    /** The name of the file that says where in the slow trace's time a run's rounds started. */
    public static final String GET_PHASE_FILE = "get-phase.txt";

    /** Writes where in the slow trace's time the rounds started, in ns, after a comment line. */
    public static void writeGetPhase(long nanos, Path file) throws IOException {
        Files.writeString(file, "# ns of the slow trace's time at which the rounds started\n" + nanos + "\n",
                StandardCharsets.US_ASCII);
    }

    /** Reads a file of {@link #writeGetPhase}; an {@link IOException} says what is wrong with it. */
    public static long readGetPhase(Path file) throws IOException {
        if (!Files.isRegularFile(file)) {
            throw new IOException(file + " not found: `rattan sim opendht-table --out DIR` writes it into DIR");
        }
        for (String line : Files.readAllLines(file, StandardCharsets.US_ASCII)) {
            String s = line.strip();
            if (s.isEmpty() || s.startsWith("#")) {
                continue;
            }
            try {
                long nanos = Long.parseLong(s);
                if (nanos >= 0) {
                    return nanos;
                }
            } catch (NumberFormatException e) {
                // Falls through to the one error below.
            }
            throw new IOException(file + " should hold a time in ns (0 or more), not: " + s);
        }
        throw new IOException(file + " holds no time");
    }

    private static String number(Double d, String absent) {
        return d == null ? absent : String.format(Locale.ROOT, "%.3f", d);
    }
}
