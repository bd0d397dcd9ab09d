package io.rattan.sim.faults;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/**
 * The fault simulator with a leaf set of 6 a side (k = 4), where replica sets lie inside the leaf set rather than at
 * its edge, as in production (8 a side): seeds that broke rule 1 there, 20 nodes, 10 minutes, with a fault budget. In
 * each, a get was answered alone by a node that counted itself a replica only because a closer member was suspected
 * (its replica set with suspects did not hold it), while the put's root, still counting that member, had put the
 * value on the true replicas; such a node now sends the get on to a closer replica (GetAnswers.answersGet).
 */
class WideLeafSetFaultTest {

    @Test
    void seedsWhereAReplicaOnlyByASuspicionAnsweredAlonePass() throws Exception {
        List<FaultRunConfig> seeds = LongStream.of(32, 79, 83)
                .mapToObj(s -> new FaultRunConfig(s, 20, 10, Profile.BUDGET, PlantedBug.NONE).withLeafSetHalf(6))
                .toList();
        for (FaultRunResult r : TwoAtATime.run("leaf set 6 a side", seeds)) {
            assertThat(r.failed()).as("%s; replay: %s", r.summaryLine(), r.config().replayCommand()).isFalse();
        }
    }
}
