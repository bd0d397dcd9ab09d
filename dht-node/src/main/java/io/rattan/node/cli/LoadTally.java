package io.rattan.node.cli;

import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * What a load has done so far: lines read, stored and failed (by reason), the first failures by line number, and
 * every failed line's original bytes in the {@code --errors} file. The reading thread and the client's callback
 * threads write it at once, the progress thread reads it: thread-safe.
 */
final class LoadTally implements Closeable {

    /** One failure as the report shows it. */
    record Failure(long line, String key, String reason, String detail) {

        @Override
        public String toString() {
            return "line " + line + (key == null ? "" : " (key " + key + ")") + ": " + reason + ": " + detail;
        }
    }

    private final LongAdder read = new LongAdder();
    private final LongAdder stored = new LongAdder();
    private final LongAdder storedBytes = new LongAdder();
    private final AtomicLong failed = new AtomicLong();
    private final Map<String, Long> reasons = new TreeMap<>();
    /** The failures of the lowest line numbers, at most {@link #shownMax}. */
    private final TreeMap<Long, Failure> shown = new TreeMap<>();
    private final int shownMax;
    private final OutputStream errors;
    private long errorsSkipped;
    /** Why the errors file stopped being written, or null. */
    private String errorsProblem;

    private LoadTally(int shownMax, OutputStream errors) {
        this.shownMax = shownMax;
        this.errors = errors;
    }

    /** Keeps the first {@code shownMax} failures; writes each failed line to {@code errorsFile} when not null. */
    static LoadTally open(int shownMax, Path errorsFile) throws IOException {
        OutputStream out = errorsFile == null ? null : new BufferedOutputStream(Files.newOutputStream(errorsFile));
        return new LoadTally(shownMax, out);
    }

    void read() {
        read.increment();
    }

    void stored(int valueBytes) {
        stored.increment();
        storedBytes.add(valueBytes);
    }

    /**
     * A line that was not stored; {@code raw} is its original text for the errors file, or null when there is
     * none to write (a line too long to hold).
     */
    void failed(Failure failure, byte[] raw) {
        failed.incrementAndGet();
        synchronized (this) {
            reasons.merge(failure.reason(), 1L, Long::sum);
            shown.put(failure.line(), failure);
            if (shown.size() > shownMax) {
                shown.pollLastEntry();
            }
            if (errors != null) {
                writeError(raw);
            }
        }
    }

    private void writeError(byte[] raw) {
        if (raw == null || errorsProblem != null) {
            errorsSkipped++;
            return;
        }
        try {
            errors.write(raw);
            errors.write('\n');
        } catch (IOException e) {
            // A callback thread cannot stop the load: the report says so instead.
            errorsProblem = String.valueOf(e.getMessage());
            errorsSkipped++;
        }
    }

    long readCount() {
        return read.sum();
    }

    long storedCount() {
        return stored.sum();
    }

    long storedBytes() {
        return storedBytes.sum();
    }

    long failedCount() {
        return failed.get();
    }

    /** Failure counts by reason, in the reasons' order. */
    synchronized Map<String, Long> reasons() {
        return new TreeMap<>(reasons);
    }

    /** The failures of the lowest line numbers, in line order. */
    synchronized List<Failure> shown() {
        return new ArrayList<>(shown.values());
    }

    /** Failed lines the errors file lacks: too long to hold, or after a write failed. */
    synchronized long errorsSkipped() {
        return errorsSkipped;
    }

    /** Why writing the errors file failed, or null. */
    synchronized String errorsProblem() {
        return errorsProblem;
    }

    @Override
    public synchronized void close() throws IOException {
        if (errors != null) {
            errors.close();
        }
    }
}
