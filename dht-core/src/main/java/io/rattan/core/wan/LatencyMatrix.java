package io.rattan.core.wan;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;

/**
 * A measured all-pairs round-trip-time matrix between hosts, in milliseconds. Entry (a, b) is the RTT measured from
 * host a to host b; the matrix need not be symmetric. Immutable and safe to share between threads.
 *
 * <p>The text format is one row per line, values separated by tabs or spaces, decimal numbers (an exponent is
 * allowed), every value finite and non-negative, as many rows as columns. Blank lines are skipped; line numbers in
 * error messages count them. The shipped PlanetLab matrix is described, with its licence, in
 * {@code io/rattan/core/wan/PROVENANCE.md}.
 */
public final class LatencyMatrix {

    /** Classpath location of the 490-host PlanetLab matrix shipped in dht-core, for the simulator and the node. */
    public static final String PLANETLAB_RESOURCE = "/io/rattan/core/wan/planetlab490-rtt-ms.tsv";

    /** The word that names the shipped PlanetLab matrix where a matrix file is expected ({@code --wan planetlab}). */
    public static final String PLANETLAB = "planetlab";

    /** Bounds the memory a malformed or hostile file can make us allocate: 8,192² doubles is 512 MiB. */
    static final int HOSTS_MAX = 8_192;

    private final int hosts;
    // Row-major: one flat array keeps the 490² lookups cache-friendly and avoids 490 small arrays.
    private final double[] rttMillis;

    private LatencyMatrix(int hosts, double[] rttMillis) {
        this.hosts = hosts;
        this.rttMillis = rttMillis;
    }

    /** Reads a matrix file; a malformed file throws {@link IllegalArgumentException} naming the line and column. */
    public static LatencyMatrix load(Path tsv) throws IOException {
        try (Reader reader = Files.newBufferedReader(tsv, StandardCharsets.UTF_8)) {
            return parse(reader, tsv.getFileName().toString());
        }
    }

    /**
     * The matrix an option names: {@link #PLANETLAB}, or a file. What is wrong with a file (missing, unreadable,
     * malformed) throws {@link IllegalArgumentException} with a sentence naming {@code option} and the file.
     */
    public static LatencyMatrix named(String planetLabOrFile, String option) {
        if (planetLabOrFile.equals(PLANETLAB)) {
            return planetLab();
        }
        Path file = Path.of(planetLabOrFile);
        try {
            return load(file);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read " + option + " matrix " + file + ": " + describe(e), e);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(option + " matrix " + e.getMessage(), e);
        }
    }

    private static String describe(IOException e) {
        if (e instanceof java.nio.file.NoSuchFileException) {
            return "no such file";
        }
        if (e instanceof java.nio.file.AccessDeniedException) {
            return "permission denied";
        }
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }

    /** The 490-host PlanetLab matrix (median RTT 135 ms, p99 413 ms) shipped as a classpath resource. */
    public static LatencyMatrix planetLab() {
        InputStream in = LatencyMatrix.class.getResourceAsStream(PLANETLAB_RESOURCE);
        if (in == null) {
            throw new IllegalStateException("missing classpath resource " + PLANETLAB_RESOURCE);
        }
        try (Reader reader = new InputStreamReader(in, StandardCharsets.UTF_8)) {
            return parse(reader, "planetlab490-rtt-ms.tsv");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + PLANETLAB_RESOURCE, e);
        }
    }

    /**
     * Parses a matrix from text; {@code sourceName} only labels error messages. Bad input throws
     * {@link IllegalArgumentException} with the 1-based line and column (the value's position in its row).
     */
    public static LatencyMatrix parse(Reader text, String sourceName) throws IOException {
        BufferedReader in = text instanceof BufferedReader b ? b : new BufferedReader(text);
        double[] values = null;
        int columns = -1;
        int firstRowLine = 0;
        int rows = 0;
        int lineNumber = 0;
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            lineNumber++;
            if (lineNumber == 1 && line.startsWith("\uFEFF")) {
                line = line.substring(1);
            }
            String trimmed = line.strip();
            if (trimmed.isEmpty()) {
                continue;
            }
            String[] fields = trimmed.split("[ \t]+");
            if (columns < 0) {
                columns = fields.length;
                firstRowLine = lineNumber;
                if (columns > HOSTS_MAX) {
                    throw bad(sourceName, lineNumber, "row has " + columns + " values; at most " + HOSTS_MAX
                            + " hosts are supported");
                }
                values = new double[columns * columns];
            } else if (fields.length != columns) {
                throw bad(sourceName, lineNumber, "expected " + columns + " values (as on line " + firstRowLine
                        + "), found " + fields.length);
            }
            if (rows == columns) {
                throw bad(sourceName, lineNumber, "more rows than the " + columns + " columns: not square");
            }
            for (int c = 0; c < columns; c++) {
                values[rows * columns + c] = parseRtt(fields[c], sourceName, lineNumber, c + 1);
            }
            rows++;
        }
        if (rows == 0) {
            throw new IllegalArgumentException(sourceName + ": no rows");
        }
        if (rows != columns) {
            throw new IllegalArgumentException(sourceName + ": " + rows + " rows but " + columns
                    + " columns: not square");
        }
        return new LatencyMatrix(columns, values);
    }

    private static double parseRtt(String field, String source, int line, int column) {
        // Double.parseDouble alone would accept "NaN", "Infinity", "0x1p3" and "5d"; none belongs in a data file.
        for (int i = 0; i < field.length(); i++) {
            char ch = field.charAt(i);
            boolean numeric = (ch >= '0' && ch <= '9') || ch == '.' || ch == 'e' || ch == 'E' || ch == '+'
                    || ch == '-';
            if (!numeric) {
                throw bad(source, line, column, "not a decimal number: '" + field + "'");
            }
        }
        double v;
        try {
            v = Double.parseDouble(field);
        } catch (NumberFormatException e) {
            throw bad(source, line, column, "not a decimal number: '" + field + "'");
        }
        if (!Double.isFinite(v)) {
            throw bad(source, line, column, "not a finite number: '" + field + "'");
        }
        if (v < 0) {
            throw bad(source, line, column, "negative RTT: " + field);
        }
        return v;
    }

    private static IllegalArgumentException bad(String source, int line, String message) {
        return new IllegalArgumentException(source + " line " + line + ": " + message);
    }

    private static IllegalArgumentException bad(String source, int line, int column, String message) {
        return new IllegalArgumentException(source + " line " + line + ", column " + column + ": " + message);
    }

    /** Number of hosts: rows, and columns. */
    public int hosts() {
        return hosts;
    }

    /** The RTT measured from host {@code a} to host {@code b}, in milliseconds. */
    public double rttMillis(int a, int b) {
        if (a < 0 || a >= hosts || b < 0 || b >= hosts) {
            throw new IndexOutOfBoundsException("host pair (" + a + ", " + b + ") outside 0.." + (hosts - 1));
        }
        return rttMillis[a * hosts + b];
    }

    /**
     * Distribution of the off-diagonal entries (every ordered pair a ≠ b), for reports. Percentiles use the
     * nearest-rank definition, so every reported value is a measured one. Sorts a copy: call it once per report.
     */
    public Summary summary() {
        if (hosts < 2) {
            throw new IllegalStateException("a " + hosts + "-host matrix has no pairs");
        }
        double[] pairs = new double[hosts * (hosts - 1)];
        int n = 0;
        for (int a = 0; a < hosts; a++) {
            for (int b = 0; b < hosts; b++) {
                if (a != b) {
                    pairs[n++] = rttMillis[a * hosts + b];
                }
            }
        }
        Arrays.sort(pairs);
        return new Summary(n, pairs[0], nearestRank(pairs, 0.50), nearestRank(pairs, 0.99), pairs[n - 1]);
    }

    private static double nearestRank(double[] sorted, double q) {
        int rank = (int) Math.ceil(q * sorted.length);
        return sorted[Math.max(0, rank - 1)];
    }

    /**
     * Off-diagonal RTT statistics in milliseconds.
     *
     * @param pairs number of ordered pairs (a, b), a ≠ b, summarised
     */
    public record Summary(long pairs, double minMillis, double medianMillis, double p99Millis, double maxMillis) {

        @Override
        public String toString() {
            return String.format(Locale.ROOT, "%d pairs: min %.3f, p50 %.1f, p99 %.1f, max %.1f ms",
                    pairs, minMillis, medianMillis, p99Millis, maxMillis);
        }
    }
}
