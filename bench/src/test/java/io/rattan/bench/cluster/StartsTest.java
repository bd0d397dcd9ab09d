package io.rattan.bench.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every start joins and no put is refused once {@code cluster start} returns (issue 15), on real processes: 5 starts
 * of 8, 200 puts after each with the client's retries off. The full-size run is {@code ./rattan cluster starts
 * --nodes 16 --starts 100 --dir D} (docs/measuring.md).
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
        TestClusters.Result r = TestClusters.run("cluster", "starts", "--nodes", "8", "--starts", "5", "--puts", "200",
                "--dir", dir.toString(), "--base-port", Integer.toString(base), "--node-jar",
                TestClusters.nodeJar().toString(), "--heap", "128m", "--ready-timeout", "120s",
                "--leaf-set-half", "2");

        assertThat(r.output()).contains("5 of 5 starts ready").contains("0 puts refused");
        assertThat(r.exitCode()).as(r.output()).isZero();
    }
}
