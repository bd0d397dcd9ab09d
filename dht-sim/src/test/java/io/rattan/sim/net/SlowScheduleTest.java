package io.rattan.sim.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.rattan.core.slow.Distribution;
import io.rattan.core.slow.SlowPeriod;
import io.rattan.core.slow.SlowTrace;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SlowScheduleTest {

    private static final long MINUTE = 60_000_000_000L;
    private static final long WEEK = 7 * 24 * 60 * MINUTE;

    @ParameterizedTest
    @ValueSource(doubles = {0.02, 0.05, 0.15})
    void timeAveragedSlowFractionIsFOverALongHorizon(double f) {
        SlowNodeModel model = SlowNodeModel.defaults().withSlowFraction(f);
        List<SlowPeriod> periods = SlowSchedule.generate(model, 2000, WEEK, 42);

        assertThat(SlowSchedule.slowNodeTimeFraction(periods, 2000, WEEK)).isCloseTo(f, within(0.015));
    }

    @Test
    void theSlowFractionHoldsFromTheStartAndAtAnyInstant() {
        List<SlowPeriod> periods = SlowSchedule.generate(SlowNodeModel.defaults(), 2000, WEEK, 43);
        long slowSamples = 0;
        int instants = 100;
        for (int k = 0; k < instants; k++) {
            long t = k * (WEEK / instants);
            slowSamples += periods.stream().filter(p -> p.covers(t)).count();
        }
        long slowAtZero = periods.stream().filter(p -> p.covers(0)).count();

        assertThat(slowSamples / (2000.0 * instants)).isCloseTo(0.05, within(0.015));
        // Binomial(2000, 0.05): mean 100, sd 9.7.
        assertThat(slowAtZero).isBetween(60L, 140L);
    }

    @Test
    void slowPeriodsLastThirtyMinutesOnAverage() {
        List<SlowPeriod> periods = SlowSchedule.generate(SlowNodeModel.defaults(), 2000, WEEK, 44);
        // Periods cut by the horizon are shorter than drawn; leave them out.
        double meanMinutes = periods.stream()
                .filter(p -> p.startNanos() > 0 && p.endNanos() < WEEK)
                .mapToLong(SlowPeriod::durationNanos)
                .average().orElseThrow() / MINUTE;

        assertThat(meanMinutes).isCloseTo(30.0, within(1.5));
    }

    @Test
    void periodsAreOrderedByNodeThenTimeInsideTheHorizonAndDisjoint() {
        List<SlowPeriod> periods = SlowSchedule.generate(SlowNodeModel.defaults(), 300, WEEK, 45);

        for (int i = 0; i < periods.size(); i++) {
            SlowPeriod p = periods.get(i);
            assertThat(p.endNanos()).isLessThanOrEqualTo(WEEK);
            assertThat(p.extra()).isEqualTo(SlowNodeModel.defaults().slowExtra());
            if (i > 0 && periods.get(i - 1).node() == p.node()) {
                assertThat(p.startNanos()).isGreaterThan(periods.get(i - 1).endNanos());
            } else if (i > 0) {
                assertThat(p.node()).isGreaterThan(periods.get(i - 1).node());
            }
        }
    }

    @Test
    void theSameSeedGivesTheSameScheduleAndANodesPeriodsDoNotDependOnWorldSize() {
        SlowNodeModel model = SlowNodeModel.defaults();
        List<SlowPeriod> small = SlowSchedule.generate(model, 100, WEEK, 46);
        List<SlowPeriod> big = SlowSchedule.generate(model, 200, WEEK, 46);

        assertThat(SlowSchedule.generate(model, 100, WEEK, 46)).isEqualTo(small);
        assertThat(SlowSchedule.generate(model, 100, WEEK, 47)).isNotEqualTo(small);
        assertThat(big.stream().filter(p -> p.node() < 100).collect(Collectors.toList())).isEqualTo(small);
    }

    @Test
    void aLossyModelListsADropTwinForEverySlowPeriod() {
        SlowNodeModel model = SlowNodeModel.defaults().withSlowDropProbability(0.1);
        List<SlowPeriod> periods = SlowSchedule.generate(model, 200, WEEK, 48);

        assertThat(periods.size() % 2).isZero();
        for (int i = 0; i < periods.size(); i += 2) {
            SlowPeriod delay = periods.get(i);
            SlowPeriod drop = periods.get(i + 1);
            assertThat(delay.extra()).isInstanceOf(Distribution.Pareto.class);
            assertThat(drop).isEqualTo(new SlowPeriod(delay.node(), delay.startNanos(), delay.endNanos(),
                    new Distribution.Drop(0.1)));
        }
        // Overlapping twins count once.
        assertThat(SlowSchedule.slowNodeTimeFraction(periods, 200, WEEK)).isCloseTo(0.05, within(0.02));
    }

    @Test
    void extremeFractionsGiveNoneOrAlwaysSlow() {
        assertThat(SlowSchedule.generate(SlowNodeModel.defaults().withSlowFraction(0), 50, WEEK, 1)).isEmpty();
        List<SlowPeriod> always = SlowSchedule.generate(SlowNodeModel.defaults().withSlowFraction(1), 50, WEEK, 1);
        assertThat(always).hasSize(50).allMatch(p -> p.startNanos() == 0 && p.endNanos() == WEEK);
        assertThat(SlowSchedule.slowNodeTimeFraction(always, 50, WEEK)).isEqualTo(1.0);
    }

    @Test
    void aTinyFractionDoesNotOverflowTheClock() {
        List<SlowPeriod> periods = SlowSchedule.generate(SlowNodeModel.defaults().withSlowFraction(1e-12), 1000,
                WEEK, 2);

        assertThat(periods).allMatch(p -> p.endNanos() <= WEEK && p.startNanos() >= 0);
    }

    @Test
    void theMeanNormalPeriodMakesTheStationaryFractionF() {
        SlowNodeModel model = SlowNodeModel.defaults();

        assertThat(model.meanNormalNanos()).isEqualTo(30.0 * MINUTE * 0.95 / 0.05);
        assertThat(model.withSlowFraction(0).meanNormalNanos()).isInfinite();
    }

    @Test
    void rejectsBadKnobs() {
        SlowNodeModel d = SlowNodeModel.defaults();
        assertThatThrownBy(() -> d.withSlowFraction(1.5)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> d.withMeanSlowNanos(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> d.withSlowExtra(new Distribution.Drop(0.5)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> d.withSlowDropProbability(-0.1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SlowSchedule.generate(d, 10, 0, 1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aGeneratedScheduleRoundTripsExactlyThroughATrace() throws java.io.IOException {
        SlowNodeModel model = SlowNodeModel.defaults().withSlowDropProbability(0.05);
        List<SlowPeriod> periods = SlowSchedule.generate(model, 500, 24 * 3_600_000_000_000L, 9);
        java.io.StringWriter out = new java.io.StringWriter();
        SlowTrace.write(periods, out);

        assertThat(periods).isNotEmpty();
        assertThat(SlowTrace.read(new java.io.StringReader(out.toString()))).isEqualTo(periods);
    }
}
