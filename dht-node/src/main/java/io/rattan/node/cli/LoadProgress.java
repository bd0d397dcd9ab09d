package io.rattan.node.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The progress line of {@code rattan load} on standard error: rewritten in place every second on a terminal, a
 * plain line every five seconds elsewhere (a log file keeps them all). Runs on a daemon thread of its own.
 */
final class LoadProgress implements AutoCloseable {

    private static final long TERMINAL_PERIOD_MILLIS = 1000;
    private static final long PLAIN_PERIOD_MILLIS = 5000;

    private final PrintWriter err;
    private final boolean terminal;
    private final LoadTally tally;
    private final LoadInput input;
    private final long startNanos;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "rattan-load-progress");
        t.setDaemon(true);
        return t;
    });
    private long lastDone;
    private long lastNanos;
    private int lastWidth;
    private boolean closed;

    private LoadProgress(PrintWriter err, boolean terminal, LoadTally tally, LoadInput input, long startNanos) {
        this.err = err;
        this.terminal = terminal;
        this.tally = tally;
        this.input = input;
        this.startNanos = startNanos;
        this.lastNanos = startNanos;
    }

    /** Starts printing; {@code quiet}: prints nothing, but still a progress to close. */
    static LoadProgress start(PrintWriter err, boolean quiet, LoadTally tally, LoadInput input, long startNanos) {
        LoadProgress p = new LoadProgress(err, stderrIsTerminal(), tally, input, startNanos);
        if (!quiet) {
            long period = p.terminal ? TERMINAL_PERIOD_MILLIS : PLAIN_PERIOD_MILLIS;
            p.timer.scheduleAtFixedRate(p::print, period, period, TimeUnit.MILLISECONDS);
        }
        return p;
    }

    /**
     * Whether this process's standard error is a terminal. Java 17 cannot ask of stderr alone; Linux says where fd 2
     * leads, elsewhere a console (stdin and stdout on a terminal) is the best guess.
     */
    static boolean stderrIsTerminal() {
        try {
            String target = Files.readSymbolicLink(Path.of("/proc/self/fd/2")).toString();
            return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty");
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return System.console() != null;
        }
    }

    private synchronized void print() {
        if (closed) {
            return;
        }
        long now = System.nanoTime();
        // One reading of each counter, read first, so the line adds up while puts complete.
        long read = tally.readCount();
        long stored = tally.storedCount();
        long failed = tally.failedCount();
        long done = stored + failed;
        double rate = (done - lastDone) * 1e9 / Math.max(1, now - lastNanos);
        lastDone = done;
        lastNanos = now;
        String line = line(read, stored, failed, rate, now);
        if (terminal) {
            // Spaces wipe what is left of a longer previous line.
            err.print("\r" + line + " ".repeat(Math.max(0, lastWidth - line.length())));
            lastWidth = line.length();
        } else {
            err.println("load: " + line);
        }
        err.flush();
    }

    private String line(long read, long stored, long failed, double rate, long now) {
        long size = input.size();
        String share = size > 0 ? String.format(Locale.ROOT, " (%d %% of the file)",
                Math.min(100, input.bytesRead() * 100 / size)) : "";
        return String.format(Locale.ROOT, "%,d lines read%s: %,d stored, %,d failed, %,d in flight; %,.0f values/s; %s",
                read, share, stored, failed, Math.max(0, read - stored - failed), rate,
                LoadReport.clock(now - startNanos));
    }

    /** Stops printing; on a terminal, ends the line the progress was written on. */
    @Override
    public synchronized void close() {
        closed = true;
        timer.shutdownNow();
        if (terminal && lastWidth > 0) {
            err.print("\r" + " ".repeat(lastWidth) + "\r");
            err.flush();
        }
    }
}
