package io.rattan.bench.harness;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rattan.bench.cluster.TestClusters;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code bench owned} on 4 real node processes: every phase of each kind runs with no failure, owned.json holds
 * every phase, the medians and the ratios; bad options and a cluster that does not run are clear errors. No speed is
 * asserted: the machine may be busy.
 */
class OwnedCommandTest extends ClusterTestBase {

    @Test
    void ownedAndUnownedPutsAndGetsRunSideBySideOnRealProcesses() throws Exception {
        TestClusters.start(clusterDir, 4);
        Path out = work.resolve("owned");
        TestClusters.Result r = TestClusters.run("bench", "owned", "--cluster", clusterDir.toString(), "--workers", "4",
                "--warmup", "0s", "--idle", "1s", "--phase", "1s", "--rounds", "2", "--keys", "20",
                "--out", out.toString());
        assertThat(r.exitCode()).as(r.output()).isZero();
        assertThat(r.output()).contains("put owned/unowned: throughput", "get owned/unowned: throughput");

        JsonNode report = new ObjectMapper().readTree(out.resolve("owned.json").toFile());
        assertThat(report.path("nodes").asInt()).isEqualTo(4);
        assertThat(report.path("phases")).hasSize(8);
        for (JsonNode phase : report.path("phases")) {
            assertThat(phase.path("ok").asLong()).as(phase.toString()).isPositive();
            assertThat(phase.path("failed").asLong()).as(phase.toString()).isZero();
            assertThat(phase.path("nodeCpuMicrosPerOp").asDouble()).as(phase.toString()).isPositive();
        }
        for (String op : List.of("put", "get")) {
            JsonNode m = report.path("medians").path(op);
            assertThat(m.path("owned").path("opsPerSecond").asDouble()).as(op).isPositive();
            assertThat(m.path("unowned").path("opsPerSecond").asDouble()).as(op).isPositive();
            assertThat(m.path("ownedOverUnowned").path("opsPerSecond").asDouble()).as(op).isPositive();
        }
        assertThat(out.resolve("owned.txt")).isRegularFile();
    }

    @Test
    void badOptionsAndAMissingClusterAreClearErrors() throws Exception {
        TestClusters.Result bad = TestClusters.run("bench", "owned", "--cluster", clusterDir.toString(), "--workers",
                "0", "--out", work.resolve("x").toString());
        assertThat(bad.exitCode()).isEqualTo(2);
        assertThat(bad.output()).contains("--workers, --rounds and --keys must be at least 1");
        TestClusters.Result none = TestClusters.run("bench", "owned", "--cluster", work.resolve("nothing").toString(),
                "--out", work.resolve("y").toString());
        assertThat(none.exitCode()).isEqualTo(1);
        assertThat(none.output()).contains("not found: start the cluster with 'rattan cluster start");
    }
}
