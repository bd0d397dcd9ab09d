package io.rattan.bench.harness;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.bench.cluster.ClusterFiles;
import io.rattan.bench.cluster.TestClusters;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The harness against real node processes: what it counts is checked against the nodes' own counters. */
class HarnessClusterTest {

    @TempDir
    static Path clusterDir;

    @TempDir
    Path runs;

    @BeforeAll
    static void startCluster() throws IOException {
        TestClusters.start(clusterDir, 3, "--leaf-set-half", "1");
    }

    @AfterAll
    static void stopCluster() {
        TestClusters.cleanUp(clusterDir);
    }

    @Test
    void theGetsTheHarnessCountsAreTheGetsTheNodesServed() throws Exception {
        // One copy per get (one gateway, no hedge) and no client retries, so each get is one request to one node.
        long before = getsServedByNodes();
        for (String api : List.of("binary", "http")) {
            Path out = runs.resolve(api);
            TestClusters.Result r = TestClusters.run("bench", "run", "--cluster", clusterDir.toString(), "--api", api,
                    "--modes", "greedy,delay-aware,iterative-2", "--workers", "2", "--duration", "3s", "--keys", "30",
                    "--absent-share", "0.2", "--retries", "0", "--timeout", "5s", "--out", out.toString());
            assertThat(r.exitCode()).as(r.output()).isZero();
        }
        long counted = getsCounted(runs.resolve("binary")) + getsCounted(runs.resolve("http"));

        assertThat(counted).isPositive();
        assertThat(getsServedByNodes() - before).isEqualTo(counted);
    }

    @Test
    void theOneHopModeOverBinaryGoesStraightToReplicasTheClientLearned() throws Exception {
        // The client is given node 0 alone: any get another node serves went to a gateway the client's ring image
        // learned from the holders named in answers. One copy per get, no retries: served and counted agree.
        List<ClusterFiles.NodeAddresses> nodes = ClusterFiles.nodes(clusterDir);
        List<Long> before = getsServedByEachNode();
        Path out = runs.resolve("one-hop");
        String metrics = String.join(",", nodes.stream().map(n -> n.http().toString()).toList());
        TestClusters.Result r = TestClusters.run("bench", "run", "--gateways", nodes.get(0).rpc().toString(),
                "--metrics", metrics, "--api", "binary", "--modes", "one-hop", "--workers", "2", "--duration", "3s",
                "--keys", "30", "--absent-share", "0", "--retries", "0", "--timeout", "5s", "--out", out.toString());
        assertThat(r.exitCode()).as(r.output()).isZero();
        List<Long> after = getsServedByEachNode();

        long servedElsewhere = 0;
        long served = 0;
        for (int i = 0; i < nodes.size(); i++) {
            served += after.get(i) - before.get(i);
            servedElsewhere += i == 0 ? 0 : after.get(i) - before.get(i);
        }
        assertThat(servedElsewhere).as("gets served by gateways the client was not given").isPositive();
        assertThat(served).isEqualTo(getsCounted(out));
    }

    /** Every get in the run's counts.csv, whatever its outcome. */
    private static long getsCounted(Path runDir) throws IOException {
        long n = 0;
        for (String line : Files.readAllLines(runDir.resolve(RunLog.COUNTS_CSV), StandardCharsets.UTF_8)) {
            String[] f = line.split(",");
            if (f[2].equals("get")) {
                for (int i = 4; i <= 7; i++) {
                    n += Long.parseLong(f[i]);
                }
            }
        }
        return n;
    }

    /** Gets the nodes say they served as gateway, summed over the nodes' /metrics. */
    private static long getsServedByNodes() throws Exception {
        return getsServedByEachNode().stream().mapToLong(Long::longValue).sum();
    }

    /** Gets each node (in index order) says it served as gateway, from its /metrics. */
    private static List<Long> getsServedByEachNode() throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        List<Long> served = new ArrayList<>();
        for (ClusterFiles.NodeAddresses node : ClusterFiles.nodes(clusterDir)) {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://" + node.http() + "/metrics"))
                    .build(), HttpResponse.BodyHandlers.ofString());
            served.add(Math.round(NodeScrape.sum(NodeScrape.parse(r.body()), "rattan_gateway_requests_seconds_count",
                    "op=\"get\"")));
        }
        return served;
    }
}
