package io.rattan.node.cli;

import ch.qos.logback.classic.Level;
import io.rattan.client.RattanClient;
import io.rattan.core.node.NodeConfig;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code rattan load}: puts every value of an NDJSON file, many at a time, and reports what was stored. */
@Command(name = "load",
        mixinStandardHelpOptions = true,
        versionProvider = RattanCli.Version.class,
        showDefaultValues = true,
        description = {"Bulk load: puts the value of each line of FILE (NDJSON: one JSON object a line), "
                + "--concurrency at a time, through the -g gateways. A line has:",
            "  key     40 hex digits or name:<text>, as 'rattan put' takes it",
            "  value   the bytes in standard base64, as an HTTP get returns them",
            "  ttl     optional: seconds, 1..--ttl-seconds-max (else --ttl)",
            "  secret  optional: text; who presents it can remove the value",
            "Other fields are refused; empty lines are skipped. A line that is malformed, or whose put fails "
                + "after --retries, is reported with its number and reason, and the load goes on. Progress goes "
                + "to standard error (in place on a terminal, every 5 s elsewhere); the report (counts, failures "
                + "by reason, throughput, the first failures) to standard output.",
            "Exits 0 only if every line was stored; 1 if any line failed; 2 for bad usage."},
        footer = {"", "A line:",
            "  {\"key\":\"name:user/42\",\"value\":\"aGVsbG8=\",\"ttl\":600,\"secret\":\"s3cret\"}",
            "Example:",
            "  rattan load data.ndjson -g 10.0.0.1:4001,10.0.0.2:4001 --errors failed.ndjson",
            "  rattan load failed.ndjson -g 10.0.0.1:4001      (the failed lines, again)"})
final class LoadCommand implements Callable<Integer> {

    /** Puts in flight at most: far above what one client needs to fill a gateway. */
    static final int CONCURRENCY_MAX = 4096;

    @Spec
    private CommandSpec spec;

    @Mixin
    private LoggingOptions logging;

    @Mixin
    GatewayOptions gateway;

    @Parameters(index = "0", paramLabel = "FILE", description = "The NDJSON file; '-' reads standard input.")
    String file;

    @Option(names = "--ttl", paramLabel = "SECONDS", description = "The TTL of a line that has none.")
    int ttlSeconds = 3600;

    @Option(names = "--ttl-seconds-max", paramLabel = "SECONDS",
            description = "The nodes' longest TTL (their --ttl-seconds-max): a line above it fails here, unsent.")
    int ttlSecondsMax = NodeConfig.defaults().ttlSecondsMax();

    @Option(names = {"-c", "--concurrency"}, paramLabel = "N",
            description = "Puts in flight at once, 1.." + CONCURRENCY_MAX + ".")
    int concurrency = 64;

    @Option(names = "--retries", paramLabel = "N",
            description = "Attempts after the first for each put, on the next gateway, within --timeout "
                    + "(RATE_LIMITED waits as long as the gateway asks). 0: none.")
    int retries = 5;

    @Option(names = "--stop-on-error",
            description = "Read no more lines after the first failure (the puts in flight finish).")
    boolean stopOnError;

    @Option(names = "--errors", paramLabel = "FILE",
            description = "Write every failed line, as it was, to this file (replaced): load it again to retry them.")
    Path errorsFile;

    @Option(names = "--errors-shown", paramLabel = "N",
            description = "Failures the report lists (the first N by line; all are counted).")
    int errorsShown = 20;

    @Option(names = {"-q", "--quiet"}, description = "No progress line.")
    boolean quiet;

    @Override
    public Integer call() throws IOException {
        validate();
        RattanClient.Builder builder = gateway.builder().maxRetries(retries);
        logging.apply(Level.WARN);
        PrintWriter out = spec.commandLine().getOut();
        LoadLines parser = new LoadLines(ttlSeconds, ttlSecondsMax);
        long start = System.nanoTime();
        String note;
        LoadTally tally;
        try (LoadInput input = open(); LoadTally t = tallyOrUsageError();
             RattanClient client = gateway.inNamespace(builder.build());
             LoadProgress progress = LoadProgress.start(spec.commandLine().getErr(), quiet, t, input, start)) {
            tally = t;
            note = new LoadRunner(client, parser, t, concurrency, stopOnError).run(input);
        }
        LoadReport.print(out, tally, System.nanoTime() - start, note, errorsFile);
        out.flush();
        return tally.failedCount() == 0 && note == null ? 0 : RattanCli.EXIT_FAILED;
    }

    private void validate() {
        require(ttlSeconds >= 1 && ttlSeconds <= ttlSecondsMax, "--ttl must be 1..--ttl-seconds-max ("
                + ttlSecondsMax + "), got " + ttlSeconds);
        require(concurrency >= 1 && concurrency <= CONCURRENCY_MAX, "--concurrency must be 1.." + CONCURRENCY_MAX
                + ", got " + concurrency);
        require(retries >= 0, "--retries must be at least 0, got " + retries);
        require(errorsShown >= 0, "--errors-shown must be at least 0, got " + errorsShown);
        if (errorsFile != null && !file.equals("-") && Files.exists(errorsFile) && Files.exists(Path.of(file))) {
            try {
                require(!Files.isSameFile(errorsFile, Path.of(file)), "--errors must not be FILE itself");
            } catch (IOException e) {
                throw new ParameterException(spec.commandLine(), "cannot compare --errors with FILE: " + e);
            }
        }
    }

    private void require(boolean ok, String problem) {
        if (!ok) {
            throw new ParameterException(spec.commandLine(), problem);
        }
    }

    private LoadInput open() {
        try {
            return LoadInput.open(file);
        } catch (NoSuchFileException e) {
            throw new ParameterException(spec.commandLine(), "no such file: " + file);
        } catch (IOException e) {
            throw new ParameterException(spec.commandLine(), "cannot read " + file + ": " + e.getMessage());
        }
    }

    private LoadTally tallyOrUsageError() {
        try {
            return LoadTally.open(errorsShown, errorsFile);
        } catch (IOException e) {
            throw new ParameterException(spec.commandLine(), "cannot write --errors " + errorsFile + ": " + e);
        }
    }
}
