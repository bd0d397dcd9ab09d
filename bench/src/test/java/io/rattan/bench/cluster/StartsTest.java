package io.rattan.bench.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every start joins, and no put right after a start is refused (issue 15), on real processes: 5 starts of 8, then 100
 * puts at once after each with the client's retries off, so that every refusal at any attempt counts. Each put may
 * take 30 s: CI shares 2 cores with other work, and a put that is slow is not a refused one. The full-size run is
 * {@code ./rattan cluster starts --nodes 16 --starts 100 --dir D}.
 */
class StartsTest {

    @TempDir
    Path dir;

    @AfterEach
    void cleanUp() {
        for (int k = 0; k < 5; k++) {
            TestClusters.cleanUp(dir.resolve("start-" + k));
        }
    }

    @Test
    void fiveStartsOfEightAllJoinAndRefuseNoPut() throws Exception {
        int base = TestClusters.freePortBlock(ClusterSpec.PORTS_PER_NODE * 8);
        TestClusters.Result r = TestClusters.run("cluster", "starts", "--nodes", "8", "--starts", "5", "--puts", "100",
                "--dir", dir.toString(), "--base-port", Integer.toString(base), "--node-jar",
                TestClusters.nodeJar().toString(), "--heap", "128m", "--ready-timeout", "120s",
                "--leaf-set-half", "2", "--put-timeout", "30s");

        System.out.println(r.output());
        assertThat(r.output()).as(r.output()).contains("5 of 5 starts ready");
        assertThat(r.output()).as("every start reports its puts").containsPattern("start 4: 8 nodes ready in .* of 100 "
                + "puts refused");
        assertThat(r.output()).as("puts refused over the 5 starts").contains("; 0 puts refused");
        assertThat(r.exitCode()).as("exit code").isZero();
    }
}
