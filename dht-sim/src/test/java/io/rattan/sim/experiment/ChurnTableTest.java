package io.rattan.sim.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.core.slow.Distribution;
import io.rattan.core.wan.LatencyMatrix;
import io.rattan.sim.net.SlowNodeModel;
import io.rattan.sim.net.SlowSchedule;
import org.junit.jupiter.api.Test;

/**
 * The table under heavy churn (60 nodes; 6 joins, 3 leaves and 3 crashes a minute for 4 virtual minutes): every kind
 * happens, the values live on by the nodes' own repair so that gets still return exactly what was put, and the
 * same seed gives the same table twice in one JVM.
 */
class ChurnTableTest {

    private static final long MINUTE = 60_000_000_000L;

    private static OpenDhtTable.Result run(long seed) {
        OpenDhtTable.Params params = new OpenDhtTable.Params(60, 24, 20, 4 * MINUTE, seed, new Churn(6, 3, 3));
        // The command's model: its default slow delay and a schedule that covers the nodes churn adds.
        SlowNodeModel model = SlowNodeModel.defaults()
                .withSlowExtra(Distribution.Pareto.parse(OpenDhtTableCommand.CALIBRATED_SLOW_DELAY));
        int slots = OpenDhtTable.nodeSlots(params);
        assertThat(slots).isGreaterThan(60);
        return new OpenDhtTable(params, LatencyMatrix.planetLab(),
                SlowSchedule.generate(model, slots, 60 * MINUTE, seed), model, OpenDhtTable.experimentConfig(),
                OpenDhtTable.standardModes(), line -> { }, (done, rounds, nanos, events) -> { }).run();
    }

    @Test
    void underHeavyChurnGetsStillReturnTheValueAndTheSameSeedGivesTheSameTable() {
        OpenDhtTable.Result first = run(4);

        Churn.Counts c = first.churn();
        assertThat(c.joins()).isPositive();
        assertThat(c.joined()).isPositive();
        assertThat(c.leaves()).isPositive();
        assertThat(c.crashes()).isPositive();
        assertThat(c.aliveAtEnd()).isLessThanOrEqualTo(60 + c.joins() - c.leaves() - c.crashes() + 1);
        int modes = OpenDhtTable.standardModes().size();
        assertThat(first.rows()).hasSize(modes + 1);
        long failed = 0;
        for (OpenDhtTable.Row r : first.rows()) {
            assertThat(r.gets()).isEqualTo(24);
            failed += r.failed();
        }
        // A get fails when it does not return exactly the value put; churn may cost a few, not most.
        assertThat(failed).isLessThanOrEqualTo(24L * modes / 10);

        OpenDhtTable.Result second = run(4);
        assertThat(TableFiles.json(second.rows())).isEqualTo(TableFiles.json(first.rows()));
        assertThat(second.churn()).isEqualTo(c);
    }
}
