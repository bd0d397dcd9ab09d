package io.rattan.bench.harness;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rattan.bench.cluster.TestClusters;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code rattan bench run} and {@code report} as a user types them, parsed by picocli and run against a stub HTTP
 * gateway: what they choose when an option is left out, and what the table shows when there is nothing to show.
 */
class BenchCommandTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path runDir;

    /** A command's exit code and everything it printed, the harness's own lines (on System.out) included. */
    private record Run(int exitCode, String output) {
    }

    @Test
    void withNeitherRateNorWorkersItRunsTheDefaultOpenLoopAndSaysSo() throws IOException {
        try (StubGateway stub = new StubGateway(0, -1, 0)) {
            Run r = benchRun(stub, "--modes", "greedy");

            assertThat(r.exitCode()).as(r.output()).isZero();
            assertThat(r.output()).contains("no --rate or --workers given: open loop at 50 gets/s in total");
            JsonNode load = runJson().path("load");
            assertThat(load.path("loop").asText()).isEqualTo("open");
            assertThat(load.path("rate").asDouble()).isEqualTo(RunCommand.DEFAULT_RATE);
            assertThat(stub.gets()).as("gets the stub answered").isPositive();
        }
    }

    @Test
    void overHttpAllIsEveryModeTheApiServes() throws IOException {
        try (StubGateway stub = new StubGateway(0, -1, 0)) {
            Run r = benchRun(stub, "--rate", "20");

            assertThat(r.exitCode()).as(r.output()).isZero();
            assertThat(r.output()).contains("--modes all over --api http leaves out iterative-3-2gw: ");
            List<String> ran = new ArrayList<>();
            runJson().path("modes").forEach(m -> ran.add(m.asText()));
            assertThat(ran).containsExactly("greedy", "delay-aware", "delay-aware-2gw", "delay-aware-3gw",
                    "iterative-3", "hedged", "one-hop", "one-hop-hedged");

            Run named = benchRun(stub, "--rate", "20", "--modes", "iterative-3-2gw");

            assertThat(named.exitCode()).as("a mode the API cannot run, named: " + named.output()).isEqualTo(2);
            assertThat(named.output()).contains("mode iterative-3-2gw: the HTTP API runs an iterative get at one "
                    + "gateway alone");
        }
    }

    @Test
    void aWindowWithoutPutsShowsDashesInThePutRowNeverNaN() throws IOException {
        try (StubGateway stub = new StubGateway(0, -1, 0)) {
            assertThat(benchRun(stub, "--rate", "50", "--modes", "greedy").exitCode()).isZero();
        }
        // The population is put before the load starts, and its TTL is far longer than the run: no put after.
        double afterPuts = runJson().path("loadStartSeconds").asDouble() + 0.6;

        Run r = capture("bench", "report", runDir.toString(), "--from", Double.toString(afterPuts));

        assertThat(r.exitCode()).as(r.output()).isZero();
        String table = Files.readString(runDir.resolve(RunReport.TABLE_TXT), StandardCharsets.UTF_8);
        assertThat(table).doesNotContain("NaN").containsPattern("(?m)^put +0 +- +- +- +- +- +0 +0 *$");
        assertThat(r.output()).contains(table);
        Run whole = capture("bench", "report", runDir.toString(), "--from", "0");
        assertThat(whole.output()).containsPattern("(?m)^put +5 +[0-9.]+ ");
    }

    /** {@code rattan bench run} of 2 s against {@code stub} over HTTP, 5 keys, with {@code more} options. */
    private Run benchRun(StubGateway stub, String... more) {
        List<String> args = new ArrayList<>(List.of("bench", "run", "--gateways", stub.address().toString(),
                "--api", "http", "--duration", "2s", "--keys", "5", "--interval", "500ms", "--out",
                runDir.toString()));
        args.addAll(List.of(more));
        return capture(args.toArray(new String[0]));
    }

    private JsonNode runJson() throws IOException {
        return JSON.readTree(runDir.resolve(RunReport.RUN_JSON).toFile());
    }

    /** Runs {@code rattan <args>} in this JVM, with what it prints on System.out too. */
    private static Run capture(String... args) {
        PrintStream stdout = System.out;
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
        try {
            TestClusters.Result r = TestClusters.run(args);
            return new Run(r.exitCode(), printed.toString(StandardCharsets.UTF_8) + r.output());
        } finally {
            System.setOut(stdout);
        }
    }
}
