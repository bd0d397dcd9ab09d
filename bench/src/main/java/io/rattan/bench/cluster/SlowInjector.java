package io.rattan.bench.cluster;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;

/**
 * Makes chosen nodes slow from outside, with no kernel support: on each period it pauses them (SIGSTOP) for the
 * stop time, then lets them run (SIGCONT) for the rest of the period. However the run ends (its duration, an
 * exception, SIGINT, SIGTERM, SIGHUP), every node of the cluster is continued; only SIGKILL of this JVM leaves
 * nodes paused, and {@code rattan cluster resume --dir D} then continues them all.
 *
 * <p>The pause toggling and the resume-all on shutdown take one lock, so that the shutdown hook never continues
 * the nodes while a pause is being sent and then sees them paused again.
 */
final class SlowInjector {

    private final ProcessCluster cluster;
    private final List<Integer> chosen;
    private final Duration stop;
    private final Duration period;
    private final PrintWriter out;
    private final Object lock = new Object();
    private boolean finished;

    SlowInjector(ProcessCluster cluster, List<Integer> chosen, Duration stop, Duration period, PrintWriter out) {
        if (stop.isNegative() || stop.isZero() || stop.compareTo(period) >= 0) {
            throw new IllegalArgumentException("--stop-ms must be above 0 and below --period-ms, got " + stop.toMillis()
                    + " and " + period.toMillis());
        }
        this.cluster = cluster;
        this.chosen = List.copyOf(chosen);
        this.stop = stop;
        this.period = period;
        this.out = out;
    }

    /** Runs the duty cycle for {@code duration}, in the calling thread; every node runs again when it returns. */
    void run(Duration duration) {
        Thread hook = new Thread(this::resumeAll, "rattan-slow-resume");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            long start = System.nanoTime();
            long end = start + duration.toNanos();
            long cycles = 0;
            while (System.nanoTime() < end && !Thread.currentThread().isInterrupted()) {
                long cycleStart = start + cycles * period.toNanos();
                if (!signalChosen("STOP")) {
                    return;
                }
                sleepUntil(Math.min(end, cycleStart + stop.toNanos()));
                if (!signalChosen("CONT")) {
                    return;
                }
                cycles++;
                sleepUntil(Math.min(end, start + cycles * period.toNanos()));
            }
            out.println("slow: " + cycles + " cycles done");
            out.flush();
        } finally {
            resumeAll();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // Already shutting down: the hook runs (or ran) resumeAll itself.
            }
        }
    }

    /** Continues every node of the cluster, chosen or not; idempotent. */
    void resumeAll() {
        synchronized (lock) {
            finished = true;
            for (int i = 0; i < cluster.spec().nodes(); i++) {
                cluster.process(i).signal("CONT");
            }
        }
    }

    /** False once the run is finished (the shutdown hook ran): nothing may be paused any more. */
    private boolean signalChosen(String signal) {
        synchronized (lock) {
            if (finished) {
                return false;
            }
            for (int i : chosen) {
                cluster.process(i).signal(signal);
            }
            return true;
        }
    }

    private static void sleepUntil(long nanoTime) {
        long left;
        while ((left = nanoTime - System.nanoTime()) > 0) {
            try {
                Thread.sleep(Math.max(1, left / 1_000_000), 0);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
