package io.rattan.bench.harness;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rattan.bench.cluster.TestClusters;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The harness against a fact it does not make: a cluster whose every node replays a slow-node trace adding D to each
 * input it handles. Every get passes through at least its gateway, so the harness must measure a p50 of at least D.
 */
class SlowHookHarnessTest extends ClusterTestBase {

    private static final int DELAY_MS = 100;

    @Test
    void withTheDelayHookAddingDToEveryGetTheMedianIsAtLeastD() throws Exception {
        Path trace = work.resolve("slow.trace");
        StringBuilder lines = new StringBuilder("# rattan-slow-trace v1\n");
        for (int node = 0; node < 3; node++) {
            lines.append(node).append(" 0 3600000 fixed ").append(DELAY_MS).append('\n');
        }
        Files.writeString(trace, lines, StandardCharsets.UTF_8);
        TestClusters.start(clusterDir, 3, "--leaf-set-half", "1", "--slow-trace", trace.toString());

        Path out = work.resolve("run");
        TestClusters.Result r = TestClusters.run("bench", "run", "--cluster", clusterDir.toString(), "--api", "binary",
                "--modes", "greedy,delay-aware", "--workers", "2", "--duration", "3s", "--keys", "10",
                "--retries", "0", "--timeout", "10s", "--out", out.toString());
        assertThat(r.exitCode()).as(r.output()).isZero();

        JsonNode summary = new ObjectMapper().readTree(out.resolve(RunReport.SUMMARY_JSON).toFile());
        int modes = 0;
        for (JsonNode mode : summary.path("modes")) {
            assertThat(mode.path("gets").asLong()).as(mode.toString()).isPositive();
            assertThat(mode.path("p50Ms").asDouble()).as(mode.toString()).isGreaterThanOrEqualTo(DELAY_MS);
            modes++;
        }
        assertThat(modes).isEqualTo(2);
    }
}
