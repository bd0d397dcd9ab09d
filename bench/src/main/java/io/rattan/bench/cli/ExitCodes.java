package io.rattan.bench.cli;

/**
 * The exit codes of {@code rattan bench} and {@code rattan cluster} beyond picocli's own (0 done, 2 bad usage), in
 * one place for every subcommand.
 */
public final class ExitCodes {

    /** An operation that ran but failed. */
    public static final int FAILED = 1;
    /** A run that finished but missed a {@code --max-*} threshold. */
    public static final int THRESHOLD_MISSED = 3;

    private ExitCodes() {
    }
}
