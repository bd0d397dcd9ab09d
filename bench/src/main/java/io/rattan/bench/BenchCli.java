package io.rattan.bench;

import io.rattan.bench.cli.ExitCodes;
import io.rattan.bench.cluster.ClusterCommand;
import io.rattan.bench.harness.BenchCommand;
import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * The bench module's command line, which the launcher dispatches to: {@code rattan cluster …} runs local
 * multi-process clusters, {@code rattan bench …} the latency harness.
 *
 * <p>Exit codes: 0 success, 1 failed, 2 bad usage, 3 a run missed a {@code --max-*} threshold ({@link ExitCodes}).
 * Nothing below this package refers to it: what the subcommands share lives in {@code io.rattan.bench.cli}.
 */
@Command(name = "rattan",
        mixinStandardHelpOptions = true,
        version = "rattan bench 0.1.0-SNAPSHOT",
        description = "Rattan's local clusters and latency harness.",
        subcommands = {ClusterCommand.class, BenchCommand.class},
        footer = {"", "Exit codes: 0 success, 1 failed, 2 bad usage, 3 a threshold was missed."})
public final class BenchCli implements Runnable {

    @Spec
    private CommandSpec spec;

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The command line with the error handling every subcommand shares: an unexpected failure is exit 1. */
    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new BenchCli());
        cl.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
            PrintWriter err = commandLine.getErr();
            err.println("error: " + e);
            e.printStackTrace(err);
            err.flush();
            return ExitCodes.FAILED;
        });
        return cl;
    }

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }
}
