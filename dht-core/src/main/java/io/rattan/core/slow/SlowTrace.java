package io.rattan.core.slow;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A plain-text slow-node trace, so that a schedule can be saved, inspected, edited by hand and replayed exactly.
 * Format version 1 (also described in {@code io/rattan/core/slow/TRACE-FORMAT.md}):
 *
 * <pre>
 * # rattan-slow-trace v1
 * # node start_ms end_ms effect parameters
 * 17 0 1893021.442817 pareto 50.0 1.2 30000.0
 * 17 0 1893021.442817 drop 0.05
 * 4 61000 75000.5 fixed 250.0
 * </pre>
 *
 * <ul>
 *   <li>The first non-blank line is the header {@code # rattan-slow-trace v1}; another version is rejected.</li>
 *   <li>{@code #} starts a comment that runs to the end of the line; blank lines are ignored.</li>
 *   <li>Every other line is one {@link SlowPeriod}: fields separated by spaces or tabs, the node index (0-based, as
 *       in the virtual world: port − 1), the start and the exclusive end in milliseconds of virtual time, then the
 *       effect: {@code pareto min_ms shape cap_ms}, {@code fixed ms} or {@code drop probability}.</li>
 *   <li>Times are non-negative decimals with at most 6 digits after the point, so a time is an exact whole number
 *       of nanoseconds; the writer drops trailing zeros. Parameters are decimal numbers (an exponent is allowed);
 *       the writer uses Java's shortest representation that reads back to the same {@code double}. Together this
 *       makes {@code read(write(periods))} equal {@code periods}, in the same order.</li>
 * </ul>
 *
 * A malformed line throws {@link IllegalArgumentException} naming its line number.
 */
public final class SlowTrace {

    /** The header line of format version 1. */
    public static final String HEADER = "# rattan-slow-trace v1";

    private static final String MAGIC = "rattan-slow-trace";
    private static final Pattern FIELDS = Pattern.compile("[ \t]+");
    private static final Pattern TIME_MS = Pattern.compile("[0-9]+(\\.[0-9]{1,6})?");
    // Deliberately narrower than Double.parseDouble, which would also take "NaN", "0x1p3" and "5d".
    private static final Pattern DECIMAL = Pattern.compile("[+-]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([eE][+-]?[0-9]+)?");

    private SlowTrace() {
    }

    /** Writes {@code periods} in format version 1, in list order. Does not close {@code out}. */
    public static void write(List<SlowPeriod> periods, Writer out) throws IOException {
        out.write(HEADER);
        out.write('\n');
        out.write("# node start_ms end_ms effect parameters "
                + "(pareto min_ms shape cap_ms | fixed ms | drop probability)\n");
        StringBuilder line = new StringBuilder(96);
        for (SlowPeriod p : periods) {
            line.setLength(0);
            line.append(p.node()).append(' ').append(millis(p.startNanos())).append(' ')
                    .append(millis(p.endNanos())).append(' ');
            Distribution d = p.extra();
            if (d instanceof Distribution.Pareto pareto) {
                line.append("pareto ").append(pareto.minMillis()).append(' ').append(pareto.shape()).append(' ')
                        .append(pareto.capMillis());
            } else if (d instanceof Distribution.Fixed fixed) {
                line.append("fixed ").append(fixed.millis());
            } else if (d instanceof Distribution.Drop drop) {
                line.append("drop ").append(drop.probability());
            } else {
                throw new IllegalStateException("unknown effect " + d);
            }
            line.append('\n');
            out.write(line.toString());
        }
        out.flush();
    }

    /** Writes a trace file (UTF-8), replacing any file there. */
    public static void write(List<SlowPeriod> periods, Path file) throws IOException {
        try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            write(periods, out);
        }
    }

    /** Reads a trace in format version 1; the periods come back in file order. Does not close {@code in}. */
    public static List<SlowPeriod> read(Reader in) throws IOException {
        BufferedReader lines = in instanceof BufferedReader b ? b : new BufferedReader(in);
        List<SlowPeriod> periods = new ArrayList<>();
        boolean headerSeen = false;
        int lineNumber = 0;
        for (String line = lines.readLine(); line != null; line = lines.readLine()) {
            lineNumber++;
            if (!headerSeen) {
                if (line.isBlank()) {
                    continue;
                }
                checkHeader(line, lineNumber);
                headerSeen = true;
                continue;
            }
            int hash = line.indexOf('#');
            String content = (hash >= 0 ? line.substring(0, hash) : line).strip();
            if (content.isEmpty()) {
                continue;
            }
            try {
                periods.add(parsePeriod(FIELDS.split(content)));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("slow trace line " + lineNumber + ": " + e.getMessage(), e);
            }
        }
        if (!headerSeen) {
            throw new IllegalArgumentException("slow trace is empty: expected the header '" + HEADER + "'");
        }
        return List.copyOf(periods);
    }

    /** Reads a trace file (UTF-8). */
    public static List<SlowPeriod> read(Path file) throws IOException {
        try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            return read(in);
        }
    }

    private static void checkHeader(String line, int lineNumber) {
        String s = line.startsWith("\uFEFF") ? line.substring(1) : line;
        s = s.strip();
        String[] words = s.startsWith("#") ? FIELDS.split(s.substring(1).strip()) : new String[0];
        if (words.length != 2 || !words[0].equals(MAGIC)) {
            throw new IllegalArgumentException("slow trace line " + lineNumber + ": expected the header '" + HEADER
                    + "', got '" + line + "'");
        }
        if (!words[1].equals("v1")) {
            throw new IllegalArgumentException("slow trace line " + lineNumber + ": unsupported format version '"
                    + words[1] + "' (this reader knows v1)");
        }
    }

    private static SlowPeriod parsePeriod(String[] f) {
        if (f.length < 4) {
            throw new IllegalArgumentException("expected 'node start_ms end_ms effect parameters', got "
                    + f.length + " fields");
        }
        int node = parseNode(f[0]);
        long start = parseMillis(f[1], "start_ms");
        long end = parseMillis(f[2], "end_ms");
        Distribution extra;
        switch (f[3]) {
            case "pareto":
                arity(f, 3, "pareto min_ms shape cap_ms");
                extra = new Distribution.Pareto(decimal(f[4], "min_ms"), decimal(f[5], "shape"),
                        decimal(f[6], "cap_ms"));
                break;
            case "fixed":
                arity(f, 1, "fixed ms");
                extra = new Distribution.Fixed(decimal(f[4], "ms"));
                break;
            case "drop":
                arity(f, 1, "drop probability");
                extra = new Distribution.Drop(decimal(f[4], "probability"));
                break;
            default:
                throw new IllegalArgumentException("unknown effect '" + f[3] + "' (expected pareto, fixed or drop)");
        }
        return new SlowPeriod(node, start, end, extra);
    }

    private static void arity(String[] f, int parameters, String usage) {
        if (f.length != 4 + parameters) {
            throw new IllegalArgumentException("'" + usage + "' takes " + parameters + " parameter"
                    + (parameters == 1 ? "" : "s") + ", got " + (f.length - 4));
        }
    }

    private static int parseNode(String s) {
        if (!s.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new IllegalArgumentException("node must be a non-negative integer, got '" + s + "'");
        }
        try {
            return Integer.parseInt(s);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("node out of range: '" + s + "'");
        }
    }

    private static long parseMillis(String s, String name) {
        if (!TIME_MS.matcher(s).matches()) {
            throw new IllegalArgumentException(name + " must be a non-negative decimal with at most 6 digits after "
                    + "the point, got '" + s + "'");
        }
        try {
            return new BigDecimal(s).movePointRight(6).longValueExact();
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException(name + " out of range: '" + s + "'");
        }
    }

    private static double decimal(String s, String name) {
        if (!DECIMAL.matcher(s).matches()) {
            throw new IllegalArgumentException(name + " is not a decimal number: '" + s + "'");
        }
        double v = Double.parseDouble(s);
        if (!Double.isFinite(v)) {
            throw new IllegalArgumentException(name + " out of range: '" + s + "'");
        }
        return v;
    }

    private static String millis(long nanos) {
        // Exact: a scale of 6 turns whole nanoseconds into milliseconds without rounding.
        BigDecimal ms = BigDecimal.valueOf(nanos, 6).stripTrailingZeros();
        return ms.toPlainString();
    }
}
