package io.rattan.sim.experiment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Offset.offset;

import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The churn schedule: a Poisson process per kind at its rate, from the seed alone. */
class ChurnPlanTest {

    private static final long MINUTE = 60_000_000_000L;

    @Test
    void eachKindHappensAtItsRateOnAverage() {
        long[] count = new long[3];
        int seeds = 400;
        for (int seed = 0; seed < seeds; seed++) {
            for (ChurnPlan.Event e : ChurnPlan.draw(new Churn(6, 3, 0.5), 10 * MINUTE, seed).events()) {
                assertThat(e.atNanos()).isBetween(0L, 10 * MINUTE - 1);
                count[e.kind().ordinal()]++;
            }
        }
        // 60, 30 and 5 per run on average; the bounds are several standard errors wide.
        assertThat((double) count[0] / seeds).isCloseTo(60, offset(2.0));
        assertThat((double) count[1] / seeds).isCloseTo(30, offset(1.5));
        assertThat((double) count[2] / seeds).isCloseTo(5, offset(0.6));
    }

    @Test
    void theSeedFixesThePlanAndOneKindsRateDoesNotMoveTheOthers() {
        ChurnPlan a = ChurnPlan.draw(new Churn(4, 2, 2), 5 * MINUTE, 9);
        assertThat(ChurnPlan.draw(new Churn(4, 2, 2), 5 * MINUTE, 9)).isEqualTo(a);
        assertThat(ChurnPlan.draw(new Churn(4, 2, 2), 5 * MINUTE, 10)).isNotEqualTo(a);
        assertThat(a.events()).isSortedAccordingTo(Comparator.comparingLong(ChurnPlan.Event::atNanos));

        ChurnPlan moreLeaves = ChurnPlan.draw(new Churn(4, 8, 2), 5 * MINUTE, 9);
        assertThat(joinsAndCrashes(moreLeaves)).isEqualTo(joinsAndCrashes(a));
        assertThat(moreLeaves.joins()).isEqualTo(a.joins()).isPositive();
        assertThat(ChurnPlan.draw(Churn.NONE, 5 * MINUTE, 9).events()).isEmpty();
    }

    private static List<ChurnPlan.Event> joinsAndCrashes(ChurnPlan plan) {
        return plan.events().stream().filter(e -> e.kind() != ChurnPlan.Kind.LEAVE).toList();
    }
}
