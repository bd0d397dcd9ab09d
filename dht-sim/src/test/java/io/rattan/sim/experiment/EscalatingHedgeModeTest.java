package io.rattan.sim.experiment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rattan.api.GetOptions;
import io.rattan.api.RoutingMode;
import io.rattan.core.slow.Distribution;
import io.rattan.core.wan.LatencyMatrix;
import io.rattan.sim.net.SlowNodeModel;
import io.rattan.sim.net.SlowSchedule;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code hedged-escalating}, the experiment mode outside the table: run alone, its rounds draw the third gateway its
 * second hedge goes through, and with half the nodes slow (so both first copies are often late) every get still ends
 * exactly right. Its hedges are timed by {@code GetRace}, whose chain of waits {@code GetRaceTest} pins.
 */
class EscalatingHedgeModeTest {

    private static final long MINUTE = 60_000_000_000L;

    @Test
    void runsAloneWithTheThirdGatewayItsSecondHedgeNeeds() {
        List<OpenDhtTable.Mode> modes = OpenDhtTable.extraModes();
        assertThat(modes).extracting(OpenDhtTable.Mode::name).containsExactly("hedged-escalating");
        OpenDhtTable.Params params = new OpenDhtTable.Params(40, 60, 10, 3 * MINUTE, 11);
        SlowNodeModel model = SlowNodeModel.defaults().withSlowFraction(0.5)
                .withSlowExtra(Distribution.Pareto.parse(OpenDhtTableCommand.CALIBRATED_SLOW_DELAY));
        OpenDhtTable.Result r = new OpenDhtTable(params, LatencyMatrix.planetLab(),
                SlowSchedule.generate(model, OpenDhtTable.nodeSlots(params), 60 * MINUTE, 11), model,
                OpenDhtTable.experimentConfig(), modes, line -> { }, (done, rounds, nanos, events) -> { }).run();

        OpenDhtTable.Row row = r.rows().get(0);
        assertThat(row.mode()).isEqualTo("hedged-escalating");
        assertThat(row.gets()).isEqualTo(60);
        assertThat(row.failed()).isZero();
        assertThat(row.hedges()).as("gets that hedged").isPositive();
    }

    @Test
    void aModesHedgesMatchItsOptions() {
        GetOptions hedged = GetOptions.of(RoutingMode.DELAY_AWARE).withHedge(true);
        assertThat(new OpenDhtTable.Mode("hedged", hedged).hedges()).isEqualTo(1);
        assertThat(new OpenDhtTable.Mode("plain", GetOptions.of(RoutingMode.GREEDY)).hedges()).isZero();
        assertThatThrownBy(() -> new OpenDhtTable.Mode("x", hedged, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new OpenDhtTable.Mode("y", GetOptions.of(RoutingMode.GREEDY), 1))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
