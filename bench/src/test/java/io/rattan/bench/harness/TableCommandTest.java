package io.rattan.bench.harness;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rattan.bench.cluster.TestClusters;
import io.rattan.sim.experiment.GetLog;
import io.rattan.sim.experiment.TableFiles;
import io.rattan.sim.experiment.OpenDhtTable;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code bench table} on 4 real node processes: every mode of the simulator's table gets its row with every round's
 * get counted and none failed, the oracle row last, and table.json reads as the simulator's; a cluster that does not
 * run, and a mode nobody knows, are clear errors. No latency is asserted: the machine may be busy.
 */
class TableCommandTest extends ClusterTestBase {

    private static final List<String> SIM_FIELDS = List.of("mode", "gets", "p50_ms", "p90_ms", "p99_ms", "p999_ms",
            "msgs_per_get", "bytes_per_get", "failed", "hedges");

    @Test
    void everyModeOfTheSimulatorsTableHasItsRowOnRealProcesses() throws Exception {
        // A trace that barely slows node 0: the run must re-arm it (POST /admin/slow-trace) on every node.
        Path trace = work.resolve("slow.trace");
        Files.writeString(trace, "# rattan-slow-trace v1\n0 0 3600000 fixed 1\n", StandardCharsets.UTF_8);
        // The default leaf set makes every node a replica of every key (k = 4): statuses here, not routing.
        TestClusters.start(clusterDir, 4, "--slow-trace", trace.toString());

        Path out = work.resolve("table");
        TestClusters.Result r = TestClusters.run("bench", "table", "--cluster", clusterDir.toString(), "--seed", "5",
                "--gets", "10", "--get-minutes", "0.1", "--values", "10", "--settle", "0s",
                "--out", out.toString());
        assertThat(r.exitCode()).as(r.output()).isZero();

        JsonNode rows = new ObjectMapper().readTree(out.resolve("table.json").toFile());
        List<String> expected = new ArrayList<>(OpenDhtTable.standardModes().stream().map(OpenDhtTable.Mode::name)
                .toList());
        expected.add("oracle");
        List<String> names = new ArrayList<>();
        for (JsonNode row : rows) {
            List<String> fields = new ArrayList<>();
            row.fieldNames().forEachRemaining(fields::add);
            assertThat(fields).as(row.toString()).isEqualTo(SIM_FIELDS);
            assertThat(row.path("gets").asLong()).as(row.toString()).isEqualTo(10);
            assertThat(row.path("failed").asLong()).as(row.toString()).isZero();
            assertThat(row.path("p50_ms").asDouble()).as(row.toString()).isPositive();
            if (!row.path("mode").asText().equals("oracle")) {
                // At least the client's request and the gateway's reply, for each get.
                assertThat(row.path("msgs_per_get").asDouble()).as(row.toString()).isGreaterThanOrEqualTo(2);
                assertThat(row.path("bytes_per_get").asDouble()).as(row.toString()).isPositive();
            } else {
                assertThat(row.path("msgs_per_get").isNull()).as(row.toString()).isTrue();
            }
            names.add(row.path("mode").asText());
        }
        assertThat(names).isEqualTo(expected);
        assertThat(Files.readAllLines(out.resolve("table.csv")).get(0)).isEqualTo(String.join(",", SIM_FIELDS));
        assertThat(out.resolve("nodes.json")).isRegularFile();
        // gets.csv: the simulator's per-get file, every get of every mode once, all of them good.
        List<String> gets = Files.readAllLines(out.resolve("gets.csv"));
        assertThat(gets.get(0)).isEqualTo(GetLog.HEADER);
        assertThat(gets).hasSize(1 + 10 * (expected.size() - 1));
        assertThat(gets.stream().skip(1).map(l -> l.split(",")[5])).containsOnly("1");
        // Node 0 is slow all along: the rounds it starts are not in the healthy-gateway p99s.
        Matcher healthy = Pattern.compile("p99 over the (\\d+) rounds whose own gateway was not slow when they "
                + "started: greedy \\d+, ").matcher(Files.readString(out.resolve("run.txt")));
        assertThat(healthy.find()).as(r.output()).isTrue();
        assertThat(Integer.parseInt(healthy.group(1))).as(r.output()).isBetween(0, 9);
        assertThat(Files.readString(clusterDir.resolve("node-0").resolve("node.log"))).contains("re-armed");

        // Rounds placed after node 0's period (as a simulator whose rounds started there): every round is healthy.
        Path sim = Files.createDirectories(work.resolve("sim"));
        TableFiles.writeGetPhase(3_600_000_000_000L, sim.resolve(TableFiles.GET_PHASE_FILE));
        Path later = work.resolve("later");
        TestClusters.Result placed = TestClusters.run("bench", "table", "--cluster", clusterDir.toString(), "--seed",
                "5", "--gets", "10", "--get-minutes", "0.1", "--values", "10", "--settle", "0s", "--modes", "greedy",
                "--get-phase-from", sim.toString(), "--out", later.toString());
        assertThat(placed.exitCode()).as(placed.output()).isZero();
        assertThat(placed.output()).contains("the rounds start at 3600000.000 ms of it");
        assertThat(Files.readString(later.resolve("run.txt")))
                .contains("p99 over the 10 rounds whose own gateway was not slow");

        TestClusters.run("cluster", "stop", "--dir", clusterDir.toString());
        TestClusters.Result stopped = TestClusters.run("bench", "table", "--cluster", clusterDir.toString(),
                "--out", work.resolve("again").toString());
        assertThat(stopped.exitCode()).as(stopped.output()).isEqualTo(1);
        assertThat(stopped.output()).contains("does not answer").contains("is it running?");
    }

    @Test
    void aMissingClusterAndAnUnknownModeAreClearErrors() {
        TestClusters.Result missing = TestClusters.run("bench", "table", "--cluster",
                work.resolve("nowhere").toString(), "--out", work.resolve("out").toString());
        assertThat(missing.exitCode()).as(missing.output()).isEqualTo(1);
        assertThat(missing.output()).contains("is not a directory").contains("rattan cluster start");

        TestClusters.Result empty = TestClusters.run("bench", "table", "--cluster", work.toString(), "--out",
                work.resolve("out").toString());
        assertThat(empty.exitCode()).as(empty.output()).isEqualTo(1);
        assertThat(empty.output()).contains("gateways.txt not found");

        TestClusters.Result mode = TestClusters.run("bench", "table", "--cluster", work.toString(), "--out",
                work.resolve("out").toString(), "--modes", "greedy,teleport");
        assertThat(mode.exitCode()).as(mode.output()).isEqualTo(2);
        assertThat(mode.output()).contains("unknown mode 'teleport'").contains("one-hop-hedged");

        TestClusters.Result before = TestClusters.run("bench", "table", "--cluster", work.toString(), "--out",
                work.resolve("out").toString(), "--get-phase-at", "-5");
        assertThat(before.exitCode()).as(before.output()).isEqualTo(2);
        assertThat(before.output()).contains("--get-phase-at of 0 ms or more");
        TestClusters.Result both = TestClusters.run("bench", "table", "--cluster", work.toString(), "--out",
                work.resolve("out").toString(), "--get-phase-at", "5", "--get-phase-from", work.toString());
        assertThat(both.exitCode()).as(both.output()).isEqualTo(2);
        assertThat(both.output()).contains("not both");
        TestClusters.Result noPhase = TestClusters.run("bench", "table", "--cluster", work.toString(), "--out",
                work.resolve("out").toString(), "--get-phase-from", work.toString());
        assertThat(noPhase.exitCode()).as(noPhase.output()).isEqualTo(1);
        assertThat(noPhase.output()).contains("get-phase.txt not found").contains("rattan sim opendht-table --out");

        TestClusters.Result help = TestClusters.run("bench", "table", "--help");
        assertThat(help.exitCode()).isZero();
        assertThat(help.output()).contains("--get-minutes").contains("rattan sim opendht-table");
    }
}
