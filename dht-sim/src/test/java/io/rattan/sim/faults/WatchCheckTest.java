package io.rattan.sim.faults;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Rule 8 in CI (issue 37): clients watch six keys through random gateways while the CI profile's faults run (crashes
 * and restarts of replicas and gateways, partitions, drops); every put acknowledged after a watch's READY must reach
 * each watch that lived to the end. A gateway that never reads a replica again after its first read (a planted bug)
 * must be caught: a push lost to a drop or a partition is then lost for good. The same runs at length:
 * {@code ./rattan sim faults --watches --profile ci --seeds N} (docs/testing.md, "Rule 8").
 */
class WatchCheckTest {

    private static final int NODES = 20;
    private static final int MINUTES = 5;

    private static List<FaultRunResult> run(int from, int to, PlantedBug bug) throws Exception {
        List<FaultRunConfig> configs = new ArrayList<>();
        for (long seed = from; seed <= to; seed++) {
            configs.add(FaultRunConfig.ci(seed, NODES, MINUTES, bug, false, false, true));
        }
        return TwoAtATime.run("watches", configs);
    }

    @Test
    void underFaultsEveryPutAcknowledgedAfterReadyReachesEveryWatchThatLived() throws Exception {
        int judged = 0;
        for (FaultRunResult r : run(1, 4, PlantedBug.NONE)) {
            assertThat(r.count(Rule.WATCH_MISSED)).as(r.summaryLine()).isZero();
            judged += r.watches().judged();
        }
        assertThat(judged).as("watches judged over the four seeds").isGreaterThanOrEqualTo(12);
    }

    @Test
    void aGatewayThatNeverReadsAgainIsCaught() throws Exception {
        long missed = 0;
        // Seeds 21-24: a push is lost where the bug leaves it unrepaired on 17, 23, 24 and 39 of seeds 1-40 (before
        // gateways checked who answers a get, on 17, 23, 28, 32, 33, 37 and 39; before nodes asked their leaf sets
        // the time, on 9-12 too).
        for (FaultRunResult r : run(21, 24, PlantedBug.WATCH_NEVER_READS_AGAIN)) {
            missed += r.count(Rule.WATCH_MISSED);
        }
        assertThat(missed).as("puts that never reached a watch, over the four seeds").isPositive();
    }
}
