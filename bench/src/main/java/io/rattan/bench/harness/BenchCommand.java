package io.rattan.bench.harness;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code rattan bench}: the long-running latency harness ({@code run}) and its reports ({@code report}). */
@Command(name = "bench",
        mixinStandardHelpOptions = true,
        description = "Measures get and put latency against a live deployment, every get mode interleaved.",
        subcommands = {RunCommand.class, ReportCommand.class, TableCommand.class, OwnedCommand.class,
            WatchCommand.class})
public final class BenchCommand implements Runnable {

    @Spec
    private CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }
}
