package io.rattan.node.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/** The final report of {@code rattan load}: counts, failures by reason, time, throughput, the first failures. */
final class LoadReport {

    private LoadReport() {
    }

    /**
     * Prints the report of a load that took {@code elapsedNanos}; {@code note}, when not null, says why it ended
     * early; {@code errorsFile} is where every failed line went, or null.
     */
    static void print(PrintWriter out, LoadTally tally, long elapsedNanos, String note, Path errorsFile) {
        double seconds = Math.max(elapsedNanos, 1) / 1e9;
        long failed = tally.failedCount();
        out.println(String.format(Locale.ROOT, "read        %,d %s", tally.readCount(),
                tally.readCount() == 1 ? "line" : "lines"));
        out.println(String.format(Locale.ROOT, "stored      %,d %s, %s", tally.storedCount(),
                tally.storedCount() == 1 ? "value" : "values", bytes(tally.storedBytes())));
        out.println(String.format(Locale.ROOT, "failed      %,d", failed) + (failed == 0 ? ""
                : tally.reasons().entrySet().stream()
                        .map(e -> String.format(Locale.ROOT, "%s: %,d", e.getKey(), e.getValue()))
                        .collect(Collectors.joining(", ", " (", ")"))));
        out.println(String.format(Locale.ROOT, "elapsed     %.1f s", seconds));
        out.println(String.format(Locale.ROOT, "throughput  %,.0f values/s, %s/s", tally.storedCount() / seconds,
                bytes(Math.round(tally.storedBytes() / seconds))));
        if (note != null) {
            out.println(note);
        }
        if (failed == 0) {
            return;
        }
        List<LoadTally.Failure> shown = tally.shown();
        out.println("failures" + (shown.size() < failed ? " (the first " + shown.size() + " by line)" : "") + ":");
        shown.forEach(f -> out.println("  " + f));
        if (shown.size() < failed) {
            out.println(String.format(Locale.ROOT, "  ... and %,d more", failed - shown.size()));
        }
        if (errorsFile != null) {
            long skipped = tally.errorsSkipped();
            out.println("every failed line is in " + errorsFile + (skipped == 0 ? "" : String.format(Locale.ROOT,
                    " but %,d (%s)", skipped, tally.errorsProblem() == null ? "lines too long to hold"
                            : "writing failed: " + tally.errorsProblem())));
        }
    }

    /** Bytes in B, KiB or MiB. */
    static String bytes(long n) {
        if (n < 1024) {
            return n + " B";
        }
        return n < 1024 * 1024 ? String.format(Locale.ROOT, "%.1f KiB", n / 1024.0)
                : String.format(Locale.ROOT, "%.1f MiB", n / (1024.0 * 1024));
    }

    /** Elapsed time as m:ss. */
    static String clock(long nanos) {
        long s = nanos / 1_000_000_000L;
        return String.format(Locale.ROOT, "%d:%02d", s / 60, s % 60);
    }
}
