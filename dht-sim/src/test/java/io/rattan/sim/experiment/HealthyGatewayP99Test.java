package io.rattan.sim.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.core.slow.Distribution;
import io.rattan.core.wan.LatencyMatrix;
import io.rattan.sim.net.SlowNodeModel;
import io.rattan.sim.net.SlowSchedule;
import org.junit.jupiter.api.Test;

/**
 * The table's diagnostic p99 over the rounds whose own gateway was healthy counts exactly those rounds: all of them
 * when no node is ever slow (and then it is the row's p99), fewer when a third of the nodes are slow at a time.
 */
class HealthyGatewayP99Test {

    private static final long MINUTE = 60_000_000_000L;

    private static OpenDhtTable.Result run(double slowFraction) {
        OpenDhtTable.Params params = new OpenDhtTable.Params(40, 20, 10, 2 * MINUTE, 5);
        SlowNodeModel model = SlowNodeModel.defaults().withSlowFraction(slowFraction)
                .withSlowExtra(Distribution.Pareto.parse(OpenDhtTableCommand.CALIBRATED_SLOW_DELAY));
        return new OpenDhtTable(params, LatencyMatrix.planetLab(),
                SlowSchedule.generate(model, OpenDhtTable.nodeSlots(params), 60 * MINUTE, 5), model,
                OpenDhtTable.experimentConfig(), OpenDhtTable.standardModes(), line -> { },
                (done, rounds, nanos, events) -> { }).run();
    }

    @Test
    void withNoSlowNodeEveryRoundCountsAndTheP99IsTheRowsOwn() {
        OpenDhtTable.Result r = run(0);

        assertThat(r.healthyGatewayRounds()).isEqualTo(20);
        for (int i = 0; i < OpenDhtTable.standardModes().size(); i++) {
            assertThat(r.healthyGatewayP99Ms().get(i)).isEqualTo(r.rows().get(i).p99Ms());
        }
    }

    @Test
    void roundsWhoseGatewayWasSlowAreLeftOut() {
        OpenDhtTable.Result r = run(0.3);

        assertThat(r.healthyGatewayRounds()).isBetween(1L, 19L);
        assertThat(r.healthyGatewayP99Ms()).hasSize(OpenDhtTable.standardModes().size());
    }
}
