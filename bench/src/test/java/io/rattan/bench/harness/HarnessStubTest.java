package io.rattan.bench.harness;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.bench.harness.OpStats.Outcome;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.HdrHistogram.EncodableHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The harness against a stub gateway whose misdeeds are known from outside the harness. */
class HarnessStubTest {

    @TempDir
    Path runDir;

    private final PrintStream log = System.out;

    @Test
    void everyCorruptedAnswerCountsAsWrongContent() throws IOException {
        int corrupt = 7;
        try (StubGateway stub = new StubGateway(corrupt, -1, 0);
             HttpTarget target = new HttpTarget(List.of(stub.address()), Duration.ofSeconds(10))) {
            HarnessConfig config = config(0, 1, 1, Duration.ofSeconds(2));
            Harness harness = new Harness(config, target, runDir, "wrong", log);
            harness.run();

            assertThat(stub.corrupted()).isEqualTo(corrupt);
            OpStats stats = harness.getStats().get(0);
            assertThat(stats.count(Outcome.WRONG)).isEqualTo(corrupt);
            assertThat(stats.count(Outcome.SUCCESS) + stats.count(Outcome.WRONG)).isEqualTo(stub.gets());
            // The report, rebuilt from the files alone, counts the same.
            writeRunJson(harness);
            RunReport.Outcome report = RunReport.write(runDir, 0.0, 1e9, log);
            assertThat(report.modes().get(0).wrong()).isEqualTo(corrupt);
            assertThat(report.modes().get(0).gets()).isEqualTo(stub.gets());
        }
    }

    @Test
    void aGatewayStallShowsInTheCorrectedHistogramOnly() throws IOException {
        // One connection, as wrk2 has: while the stub stalls, the sends due meanwhile wait and fall behind their
        // intended times. At 200 gets/s a 2 s stall leaves ~400 gets late by up to 2 s; only one waited at the stub.
        try (StubGateway stub = new StubGateway(0, 400, 2000);
             HttpTarget target = new HttpTarget(List.of(stub.address()), Duration.ofSeconds(10))) {
            HarnessConfig config = config(200, 1, 0, Duration.ofSeconds(6));
            Harness harness = new Harness(config, target, runDir, "stall", log);
            harness.run();

            assertThat(stub.gets()).isGreaterThanOrEqualTo(200);
            Histogram corrected = fromLog("get/greedy");
            Histogram uncorrected = fromLog("get-uncorrected/greedy");
            assertThat(corrected.getTotalCount()).isEqualTo(uncorrected.getTotalCount()).isEqualTo(stub.gets());
            long slowMicros = 1_000_000;
            long slowCorrected = corrected.getCountBetweenValues(slowMicros, Long.MAX_VALUE / 4);
            long slowUncorrected = uncorrected.getCountBetweenValues(slowMicros, Long.MAX_VALUE / 4);
            assertThat(uncorrected.getMaxValue()).isGreaterThanOrEqualTo(2_000_000);
            // Bounds with room for a loaded machine: the stalled get itself is over 1 s uncorrected, and a pause of
            // the test's own JVM could add a few; the sends that queued behind it are over 1 s only corrected.
            assertThat(slowUncorrected).as("uncorrected gets over 1 s").isPositive();
            assertThat(slowCorrected).as("corrected gets over 1 s").isGreaterThanOrEqualTo(50)
                    .isGreaterThan(10 * slowUncorrected);
        }
    }

    /** 20 keys, greedy gets only, no absent keys, a timeout far above the stall. */
    private static HarnessConfig config(double rate, int connections, int workers, Duration duration) {
        return new HarnessConfig(List.of(GetMode.parse("greedy")), 20, 1, 64, Duration.ofMinutes(5), 0, rate,
                connections, workers, duration, Duration.ZERO, Duration.ofMillis(500), Duration.ofSeconds(5),
                Duration.ofSeconds(10), 1);
    }

    /** What RunCommand writes before the report, reduced to what the report reads. */
    private void writeRunJson(Harness harness) throws IOException {
        Files.writeString(runDir.resolve(RunReport.RUN_JSON), "{\"startMillis\":"
                + harness.startMillis() + ",\"intervalSeconds\":0.5,\"modes\":[\"greedy\"],\"thresholds\":{}}");
    }

    /** The sum of every interval histogram with this tag in the run's latency.hlog. */
    private Histogram fromLog(String tag) throws IOException {
        Histogram sum = new Histogram(OpStats.LATENCY_MICROS_MAX, OpStats.SIGNIFICANT_DIGITS);
        HistogramLogReader reader = new HistogramLogReader(runDir.resolve(RunLog.LATENCY_LOG).toFile());
        EncodableHistogram h;
        while ((h = reader.nextIntervalHistogram()) != null) {
            if (tag.equals(h.getTag())) {
                sum.add((Histogram) h);
            }
        }
        return sum;
    }
}
