package io.rattan.bench.harness;

import io.rattan.bench.cluster.TestClusters;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * A test that starts a cluster of node processes of its own in {@link #clusterDir}, with a second directory for its
 * inputs and outputs. After each test the cluster is stopped and any process still naming the directory is killed, so
 * a failed test leaves no node running.
 */
abstract class ClusterTestBase {

    @TempDir
    Path clusterDir;

    @TempDir
    Path work;

    @AfterEach
    void stopCluster() {
        TestClusters.cleanUp(clusterDir);
    }
}
