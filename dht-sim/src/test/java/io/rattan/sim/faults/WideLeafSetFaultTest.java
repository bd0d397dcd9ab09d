package io.rattan.sim.faults;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/**
 * The fault simulator with a leaf set of 6 and of 8 a side (production's; k = 4), where replica sets lie inside the
 * leaf set rather than at its edge: seeds that broke rule 1 there before GetAnswers.answersGet stopped a node that is a
 * replica only because a closer member is suspected from answering a get alone (20 nodes, 10 minutes, a fault budget).
 * In those at 6 a side that was the cause: the put's root, still counting the suspect, had put the value on the true
 * replicas.
 */
class WideLeafSetFaultTest {

    @Test
    void seedsWhereAReplicaOnlyByASuspicionAnsweredAlonePass() throws Exception {
        List<FaultRunConfig> seeds = new ArrayList<>();
        LongStream.of(32, 79, 83).forEach(s -> seeds.add(budget(s, 6)));
        LongStream.of(5, 34, 48).forEach(s -> seeds.add(budget(s, 8)));
        for (FaultRunResult r : TwoAtATime.run("wide leaf set", seeds)) {
            assertThat(r.failed()).as("%s; replay: %s", r.summaryLine(), r.config().replayCommand()).isFalse();
        }
    }

    private static FaultRunConfig budget(long seed, int leafSetHalf) {
        return new FaultRunConfig(seed, 20, 10, Profile.BUDGET, PlantedBug.NONE).withLeafSetHalf(leafSetHalf);
    }
}
