package io.rattan.sim.experiment;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Every get of a table run, one CSV line each in the order they were decided ({@code gets.csv}). The simulator and
 * {@code bench table} both write it, and a round is the same draw on both sides (its start offset, gateway and key),
 * so a simulated get and its real twin can be joined line by line: which rounds fail on one side only, and when.
 * Not thread-safe; each side touches it from its one loop.
 */
public final class GetLog {

    /** The file's header line. */
    public static final String HEADER = "round_ms,gateway,key,mode,latency_ms,ok,healthy,hedged";

    /**
     * A round as both sides draw it: {@code offsetNanos} into the get phase, its own gateway (node index) and the
     * index of the value it gets.
     */
    public record Round(long offsetNanos, int gateway, int key) {
    }

    private final StringBuilder csv = new StringBuilder(HEADER).append('\n');

    /**
     * One decided get of {@code mode} in {@code round}, taking {@code micros}; {@code healthy} when the round's gateway
     * was not slow as it started.
     */
    public void add(Round round, String mode, long micros, boolean ok, boolean healthy, boolean hedged) {
        csv.append(String.format(Locale.ROOT, "%.3f,%d,%d,%s,%.3f,%d,%d,%d%n", round.offsetNanos() / 1e6,
                round.gateway(), round.key(), mode, micros / 1e3, ok ? 1 : 0, healthy ? 1 : 0, hedged ? 1 : 0));
    }

    /** Writes the lines so far to {@code file}. */
    public void write(Path file) throws IOException {
        Files.writeString(file, csv, StandardCharsets.US_ASCII);
    }
}
