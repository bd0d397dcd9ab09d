package io.rattan.bench.harness;

import io.rattan.bench.cli.ExitCodes;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code rattan bench report}: rebuilds a run's table, summary, plots and HTML from its logs. */
@Command(name = "report", mixinStandardHelpOptions = true,
        description = "Rebuilds table.txt, summary.json, the PNG plots and report.html of a run from what it wrote "
                + "(run.json, latency.hlog, counts.csv, metrics/), for the whole run after its warm-up or for a "
                + "window. Works on a run that was killed, too.",
        footer = {"", "Example: rattan bench report runs/c16 --from 600 --to 1200",
            "Exit codes: 0 done, 1 failed, 2 bad usage, 3 a threshold the run named was missed in the window."})
public final class ReportCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "RUN_DIR", description = "The --out of a bench run.")
    Path runDir;

    @Option(names = "--from", paramLabel = "SECONDS",
            description = "Window start, in seconds since the run began. Default: the end of the warm-up.")
    Double from;

    @Option(names = "--to", paramLabel = "SECONDS",
            description = "Window end, in seconds since the run began. Default: the end of the load.")
    Double to;

    @Override
    public Integer call() throws IOException {
        RunReport.Outcome outcome = RunReport.write(runDir, from, to, System.out);
        return outcome.missed().isEmpty() ? 0 : ExitCodes.THRESHOLD_MISSED;
    }
}
