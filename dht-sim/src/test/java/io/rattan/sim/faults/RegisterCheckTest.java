package io.rattan.sim.faults;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Rule 7 in CI (issue 36): owned values used as registers, racing compare-and-swaps and quorum reads on four keys per
 * run, each key's history checked for linearizability. Without faults every history must be linearizable; under the
 * CI profile's faults every key whose root stayed put must be, and the keys whose root changed are printed apart;
 * and a root that ignores the swap's condition (a planted bug) must be caught. The same runs at length:
 * {@code ./rattan sim faults --registers --profile ci --seeds N} (docs/testing.md, "Rule 7").
 */
class RegisterCheckTest {

    private static final int NODES = 20;
    private static final int MINUTES = 5;

    private static List<FaultRunResult> run(List<FaultRunConfig> configs) throws Exception {
        return TwoAtATime.run("registers", configs);
    }

    private static List<FaultRunConfig> seeds(int from, int to, Profile profile, PlantedBug bug) {
        List<FaultRunConfig> out = new ArrayList<>();
        for (long seed = from; seed <= to; seed++) {
            out.add(profile == null ? FaultRunConfig.ci(seed, NODES, MINUTES, bug, false, true)
                    : new FaultRunConfig(seed, NODES, MINUTES, profile, bug, false, true));
        }
        return out;
    }

    @Test
    void withoutFaultsEveryRegisterHistoryIsLinearizable() throws Exception {
        for (FaultRunResult r : run(seeds(1, 3, Profile.NONE, PlantedBug.NONE))) {
            for (Rule rule : Rule.values()) {
                assertThat(r.count(rule)).as("%s in %s", rule, r.summaryLine()).isZero();
            }
            RegisterHistories.Summary s = r.registers();
            assertThat(s.keys()).isEqualTo(RegisterWorkload.KEYS);
            assertThat(s.keysRootChanged() + s.keysPartitioned()).as(r.summaryLine()).isZero();
            assertThat(s.swapped()).as("swaps that won in %s", r.summaryLine()).isPositive();
            assertThat(s.refused()).as("swaps that lost (412) in %s", r.summaryLine()).isPositive();
            assertThat(s.reads()).as(r.summaryLine()).isPositive();
            assertThat(s.swapped() + s.refused() + s.unknown() + s.reads())
                    .isLessThanOrEqualTo(RegisterWorkload.KEYS * RegisterWorkload.OPS_PER_KEY);
        }
    }

    @Test
    void underFaultsEveryHistoryWhoseRootStayedPutIsLinearizable() throws Exception {
        List<FaultRunResult> runs = run(seeds(1, 4, null, PlantedBug.NONE));
        int judged = 0;
        for (FaultRunResult r : runs) {
            assertThat(r.count(Rule.REGISTER_NOT_LINEARIZABLE)).as(r.summaryLine()).isZero();
            RegisterHistories.Summary s = r.registers();
            judged += s.keys() - s.keysRootChanged() - s.keysPartitioned();
        }
        assertThat(judged).as("keys judged under the guarantee over the four seeds").isPositive();
        FaultRunResult again = FaultRun.run(runs.get(0).config());
        assertThat(again.trace()).as("a replay").isEqualTo(runs.get(0).trace());
        assertThat(again.registers()).isEqualTo(runs.get(0).registers());
    }

    @Test
    void aRootThatIgnoresTheConditionIsCaught() throws Exception {
        for (FaultRunResult r : run(seeds(1, 2, Profile.NONE, PlantedBug.CAS_CONDITION_IGNORED))) {
            assertThat(r.count(Rule.REGISTER_NOT_LINEARIZABLE)).as(r.summaryLine()).isPositive();
        }
    }
}
