package io.rattan.bench.harness;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rattan.api.Address;
import io.rattan.bench.cluster.ClusterFiles;
import io.rattan.bench.cluster.TestClusters;
import io.rattan.core.wan.LatencyMatrix;
import io.rattan.sim.experiment.OpenDhtTable;
import io.rattan.sim.experiment.TableFiles;
import io.rattan.sim.net.SlowNodeModel;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The simulator checked against real processes on the same inputs: the same rounds of greedy gets, on the same
 * PlanetLab hosts, with the same node ids, k, leaf set and timeouts, in the simulator and on node processes that emulate the
 * wide area ({@code --wan}). The real median lands within 20 % of the simulated one. The matrix's round trips are
 * tens to hundreds of milliseconds, so the few milliseconds a busy machine adds to a get stay inside the bound.
 */
class TableFidelityTest extends ClusterTestBase {

    private static final int NODES = 8;
    private static final long SEED = 3;
    private static final int GETS = 100;
    private static final int VALUES = 10;
    private static final double GET_MINUTES = 0.25;

    @Test
    void greedyMedianOnRealProcessesIsTheSimulatorsWithinTwentyPercent() throws Exception {
        OpenDhtTable.Result sim = simulate();
        OpenDhtTable.Row simGreedy = sim.rows().get(0);
        assertThat(simGreedy.gets()).isEqualTo(GETS);
        assertThat(simGreedy.failed()).isZero();
        double simulated = simGreedy.p50Ms();
        // The simulated world's keys, and so its ids, so that each key has the same root and replicas on both sides.
        Path keys = work.resolve("keys.txt");
        TableFiles.writeKeys(sim.nodeKeys(), keys);

        TestClusters.start(clusterDir, NODES, "--keys", keys.toString(), "--leaf-set-half", "2", "--replicas", "3",
                "--request-timeout-ms", "10000", "--rto-initial-ms", "5000", "--rto-min-ms", "20",
                "--wan", "planetlab", "--wan-seed", Long.toString(SEED));
        for (int i = 0; i < NODES; i++) {
            assertThat(idOf(ClusterFiles.nodes(clusterDir).get(i).http())).as("node %d's id", i)
                    .isEqualTo(sim.nodeKeys().get(i).id().toHex());
        }
        Path out = work.resolve("real");
        TestClusters.Result r = TestClusters.run("bench", "table", "--cluster", clusterDir.toString(),
                "--seed", Long.toString(SEED), "--gets", Integer.toString(GETS), "--values", Integer.toString(VALUES),
                "--get-minutes", Double.toString(GET_MINUTES), "--modes", "greedy", "--out", out.toString());
        assertThat(r.exitCode()).as(r.output()).isZero();
        JsonNode greedy = new ObjectMapper().readTree(out.resolve("table.json").toFile()).get(0);
        assertThat(greedy.path("mode").asText()).isEqualTo("greedy");
        assertThat(greedy.path("gets").asLong()).as(r.output()).isEqualTo(GETS);
        assertThat(greedy.path("failed").asLong()).as(r.output()).isZero();

        assertThat(greedy.path("p50_ms").asDouble()).as("real greedy p50 against the simulator's %.1f ms; %s",
                simulated, r.output()).isBetween(simulated * 0.8, simulated * 1.2);
    }

    private static String idOf(Address http) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create("http://" + http + "/node")).build(), BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        return new ObjectMapper().readTree(r.body()).path("id").asText();
    }

    private static OpenDhtTable.Result simulate() {
        OpenDhtTable.Params params = new OpenDhtTable.Params(NODES, GETS, VALUES, (long) (GET_MINUTES * 60e9), SEED);
        OpenDhtTable table = new OpenDhtTable(params, LatencyMatrix.planetLab(), List.of(), SlowNodeModel.none(),
                OpenDhtTable.experimentConfig(2, 3), OpenDhtTable.modesNamed(List.of("greedy")), line -> { },
                (done, rounds, nanos, events) -> { });
        return table.run();
    }
}
