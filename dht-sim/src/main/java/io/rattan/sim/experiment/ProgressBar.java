package io.rattan.sim.experiment;

import java.io.PrintStream;
import java.util.Locale;

/**
 * A one-line progress bar on a terminal (redrawn in place), or a line every 10% when the stream is not a terminal,
 * so that logs stay readable.
 */
final class ProgressBar {

    private static final int WIDTH = 30;

    private final PrintStream out;
    private final boolean enabled;
    private final boolean terminal = System.console() != null;
    private final long startNanos = System.nanoTime();
    private int lastDecile = -1;
    private boolean drawn;

    ProgressBar(PrintStream out, boolean enabled) {
        this.out = out;
        this.enabled = enabled;
    }

    void update(int done, int total, long virtualNanos, long events) {
        if (!enabled) {
            return;
        }
        double wall = (System.nanoTime() - startNanos) / 1e9;
        int filled = total == 0 ? WIDTH : (int) ((long) done * WIDTH / total);
        String line = String.format(Locale.ROOT, "[%s%s] %3d%% rounds %d/%d, virtual %.1f min, %.0fk events/s",
                "#".repeat(filled), ".".repeat(WIDTH - filled), total == 0 ? 100 : done * 100 / total, done, total,
                virtualNanos / 60e9, events / Math.max(wall, 1e-3) / 1e3);
        if (terminal) {
            out.print("\r" + line);
            drawn = true;
        } else if (done * 10 / Math.max(1, total) > lastDecile) {
            lastDecile = done * 10 / Math.max(1, total);
            out.println("  " + line);
        }
        out.flush();
    }

    void finish() {
        if (drawn) {
            out.println();
        }
    }
}
