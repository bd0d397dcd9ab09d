package io.rattan.node.cli;

import java.io.PrintWriter;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * Keeps a long-running command alive until SIGINT or SIGTERM, then stops it gracefully and exits 0.
 *
 * <p>The JVM turns those signals into a shutdown, and a JVM shut down by a signal exits 130 or 143 however well it
 * cleaned up; a supervisor would read that as a failure. So the shutdown hook does the whole graceful stop and then
 * halts with 0 itself: by then everything worth finishing (the node's hand-off, the store's close, the output) is
 * done.
 */
final class UntilStopped {

    private UntilStopped() {
    }

    /**
     * Blocks until the process is told to stop, then runs {@code stop} and ends the process with status 0 (1 if
     * {@code stop} throws). Returns only if the calling thread is interrupted, after running {@code stop} itself.
     */
    static int await(PrintWriter out, Runnable stop) {
        return await(out, stop, new CompletableFuture<>());
    }

    /**
     * As {@link #await(PrintWriter, Runnable)}, but also ends when {@code ended} completes (the work stopped by
     * itself): then runs {@code stop} and returns the status {@code ended} completed with, if an {@code Integer}, else
     * {@link RattanCli#EXIT_FAILED}.
     */
    static int await(PrintWriter out, Runnable stop, CompletableFuture<?> ended) {
        Thread hook = new Thread(() -> {
            int status = 0;
            try {
                out.println("stopping…");
                out.flush();
                stop.run();
                out.println("stopped");
            } catch (RuntimeException | Error e) {
                out.println("error while stopping: " + e);
                status = 1;
            }
            out.flush();
            System.err.flush();
            Runtime.getRuntime().halt(status);
        }, "rattan-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        int status = 0;
        try {
            status = ended.get() instanceof Integer given ? given : RattanCli.EXIT_FAILED;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
            status = RattanCli.EXIT_FAILED;
        }
        Runtime.getRuntime().removeShutdownHook(hook);
        stop.run();
        return status;
    }
}
