package io.rattan.sim.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.rattan.api.Address;
import io.rattan.core.slow.Distribution;
import io.rattan.core.slow.SlowPeriod;
import io.rattan.core.slow.SlowTrace;
import io.rattan.core.wan.HostAssignment;
import io.rattan.core.wan.LatencyMatrix;
import io.rattan.core.wan.OneWayDelay;
import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class WideAreaLatencyModelTest {

    private static final long MS = 1_000_000L;
    private static final long SECOND = 1_000 * MS;
    private static final LatencyMatrix PLANETLAB = LatencyMatrix.planetLab();
    private static final SlowNodeModel QUIET = SlowNodeModel.none();

    private static Address node(int i) {
        return new Address("node" + i, i + 1);
    }

    private static WideAreaLatencyModel model(int nodes, List<SlowPeriod> periods, SlowNodeModel knobs,
            double jitter, long seed, ManualClock clock) {
        WideAreaLatencyModel m = new WideAreaLatencyModel(PLANETLAB, HostAssignment.random(nodes, 490, seed), periods,
                knobs, jitter, seed);
        m.attach(clock);
        return m;
    }

    private static long oneWayNanos(WideAreaLatencyModel m, int a, int b) {
        return Math.round(m.rttMillis(a, b) * 1e6 / 2);
    }

    @Test
    void aHealthyIdleNodeAddsOnlyItsServiceTimeToHalfTheRtt() {
        ManualClock clock = new ManualClock();
        WideAreaLatencyModel m = model(50, List.of(), QUIET, 0, 1, clock);

        for (int to = 1; to < 50; to++) {
            assertThat(m.delayNanos(node(0), node(to), null)).isEqualTo(oneWayNanos(m, 0, to) + MS);
        }
        assertThat(m.rttMillis(0, 1)).isEqualTo(PLANETLAB.rttMillis(
                HostAssignment.random(50, 490, 1).hostOf(0), HostAssignment.random(50, 490, 1).hostOf(1)));
    }

    @Test
    void nodesSharingAHostSeeTheIntraHostRtt() {
        ManualClock clock = new ManualClock();
        WideAreaLatencyModel m = new WideAreaLatencyModel(PLANETLAB, HostAssignment.random(980, 490, 2), List.of(),
                QUIET, 0, 2);
        m.attach(clock);

        // Round-robin placement: node 3 and node 493 share a host.
        assertThat(m.delayNanos(node(3), node(493), null)).isEqualTo(250_000L + MS);
    }

    @Test
    void twoMessagesSentAtOnceToOneNodeAreServedAtLeastAServiceTimeApart() {
        ManualClock clock = new ManualClock();
        WideAreaLatencyModel m = model(100, SlowSchedule.generate(SlowNodeModel.defaults(), 100, 3_600 * SECOND, 3),
                SlowNodeModel.defaults(), OneWayDelay.DEFAULT_JITTER_FRACTION, 3, clock);
        SplittableRandom random = new SplittableRandom(3);

        for (int i = 0; i < 5_000; i++) {
            clock.advance(random.nextLong(0, 2 * SECOND));
            int to = random.nextInt(100);
            long first = m.delayNanos(node(random.nextInt(100)), node(to), null);
            long second = m.delayNanos(node(random.nextInt(100)), node(to), null);
            // Either may be served first (the nearer one in the gap before the other), never both at once.
            assertThat(Math.abs(second - first)).isGreaterThanOrEqualTo(MS);
        }
    }

    /** Ten nodes without jitter, node 1 slow all along by a fixed second per message. */
    private static WideAreaLatencyModel nodeOneSlowBySecond(ManualClock clock) {
        List<SlowPeriod> periods = List.of(new SlowPeriod(1, 0, 3_600 * SECOND, new Distribution.Fixed(1_000)));
        return model(10, periods, QUIET, 0, 4, clock);
    }

    @Test
    void aBusyNodeQueuesMessagesBehindEachOther() {
        ManualClock clock = new ManualClock();
        WideAreaLatencyModel m = nodeOneSlowBySecond(clock);
        long oneWay = oneWayNanos(m, 0, 1);

        assertThat(m.delayNanos(node(0), node(1), null)).isEqualTo(oneWay + 1_001 * MS);
        assertThat(m.delayNanos(node(0), node(1), null)).isEqualTo(oneWay + 2_002 * MS);
        clock.advance(500 * MS);
        assertThat(m.delayNanos(node(0), node(1), null)).isEqualTo(oneWay + 3_003 * MS - 500 * MS);
        // Other nodes' queues are their own.
        assertThat(m.delayNanos(node(0), node(2), null)).isEqualTo(oneWayNanos(m, 0, 2) + MS);
    }

    @Test
    void aMessageThatArrivesFirstIsServedBeforeOneSentEarlierFromFarther() {
        ManualClock clock = new ManualClock();
        WideAreaLatencyModel m = model(10, List.of(), QUIET, 0, 5, clock);
        int to = 0;
        int far = 1;
        int near = 1;
        for (int i = 1; i < 10; i++) {
            far = m.rttMillis(i, to) > m.rttMillis(far, to) ? i : far;
            near = m.rttMillis(i, to) < m.rttMillis(near, to) ? i : near;
        }
        assertThat(oneWayNanos(m, far, to) - oneWayNanos(m, near, to)).as("seed 5 has a far and a near node")
                .isGreaterThan(10 * MS);

        assertThat(m.delayNanos(node(far), node(to), null)).isEqualTo(oneWayNanos(m, far, to) + MS);
        assertThat(m.delayNanos(node(near), node(to), null)).as("served on arrival, in the gap before the far one")
                .isEqualTo(oneWayNanos(m, near, to) + MS);
        // One that arrives while the far one is served waits for it.
        clock.advance(oneWayNanos(m, far, to) - oneWayNanos(m, near, to));
        assertThat(m.delayNanos(node(near), node(to), null)).isEqualTo(oneWayNanos(m, near, to) + 2 * MS);
    }

    @Test
    void aNodesTimerWaitsForTheMessagesThatArrivedBeforeItNotForThoseStillOnTheWay() {
        WideAreaLatencyModel m = nodeOneSlowBySecond(new ManualClock());
        long oneWay = oneWayNanos(m, 0, 1);
        m.delayNanos(node(0), node(1), null);
        m.delayNanos(node(0), node(1), null);

        assertThat(m.readyAtNanos(node(1), oneWay - 1)).as("nothing has arrived yet").isEqualTo(oneWay - 1);
        assertThat(m.readyAtNanos(node(1), oneWay + 500 * MS)).as("both arrived, the first in service")
                .isEqualTo(oneWay + 2_002 * MS);
        assertThat(m.readyAtNanos(node(1), oneWay + 3_000 * MS)).as("both served")
                .isEqualTo(oneWay + 3_000 * MS);
        assertThat(m.readyAtNanos(node(2), 0)).as("another node's queue").isZero();
        assertThat(m.readyAtNanos(WideAreaLatencyModel.clientAddress(1), 5)).as("a client is no server")
                .isEqualTo(5);
    }

    @Test
    void aSlowNodeAddsAtLeastFiftyMillisecondsDuringItsPeriodAndNothingOutsideIt() {
        ManualClock clock = new ManualClock();
        SlowPeriod period = new SlowPeriod(7, 100 * SECOND, 1_000 * SECOND, SlowNodeModel.defaults().slowExtra());
        WideAreaLatencyModel m = model(50, List.of(period), QUIET, 0, 5, clock);
        long oneWay = oneWayNanos(m, 3, 7);
        int inside = 0;
        int outside = 0;

        // 40 s apart, longer than the 30 s cap, so no message waits behind another.
        for (long t = 0; t <= 2_000 * SECOND; t += 40 * SECOND) {
            clock.set(t);
            long extra = m.delayNanos(node(3), node(7), null) - oneWay - MS;
            if (period.covers(t + oneWay)) {
                inside++;
                assertThat(extra).isGreaterThanOrEqualTo(50 * MS).isLessThanOrEqualTo(30_000 * MS);
                assertThat(m.isSlow(7, t + oneWay)).isTrue();
            } else {
                outside++;
                assertThat(extra).isZero();
                assertThat(m.isSlow(7, t + oneWay)).isFalse();
            }
        }
        assertThat(inside).isGreaterThan(10);
        assertThat(outside).isGreaterThan(10);
        assertThat(m.isSlow(7, 100 * SECOND)).isTrue();
        assertThat(m.isSlow(7, 1_000 * SECOND)).isFalse();
        assertThat(m.isSlow(6, 500 * SECOND)).isFalse();
    }

    @Test
    void healthyNodesStallOnAboutOneMessageInAThousand() {
        ManualClock clock = new ManualClock();
        WideAreaLatencyModel m = model(10, List.of(), SlowNodeModel.defaults(), 0, 6, clock);
        long oneWay = oneWayNanos(m, 0, 1);
        int stalls = 0;

        for (int i = 0; i < 200_000; i++) {
            clock.advance(10 * SECOND);
            long extra = m.delayNanos(node(0), node(1), null) - oneWay - MS;
            if (extra != 0) {
                stalls++;
                assertThat(extra).isBetween(100 * MS, 5_000 * MS);
            }
        }
        // Binomial(200,000, 0.001): mean 200, sd 14.
        assertThat(stalls).isBetween(140, 260);
    }

    @Test
    void jitterIsNormalWithSigmaATenthOfTheOneWayDelay() {
        ManualClock clock = new ManualClock();
        WideAreaLatencyModel m = model(10, List.of(), QUIET, OneWayDelay.DEFAULT_JITTER_FRACTION, 7, clock);
        double oneWay = m.rttMillis(0, 1) * 1e6 / 2;
        int n = 50_000;
        double sum = 0;
        double sumSquares = 0;
        for (int i = 0; i < n; i++) {
            clock.advance(SECOND);
            double network = m.delayNanos(node(0), node(1), null) - MS;
            assertThat(network).isNotNegative();
            sum += network;
            sumSquares += network * network;
        }
        double mean = sum / n;
        double sd = Math.sqrt(sumSquares / n - mean * mean);

        assertThat(mean).isCloseTo(oneWay, within(0.005 * oneWay));
        assertThat(sd).isCloseTo(0.1 * oneWay, within(0.005 * oneWay));
    }

    @Test
    void aGeneratedScheduleAndItsReReadTraceReplayToIdenticalDelays() throws IOException {
        SlowNodeModel knobs = SlowNodeModel.defaults().withSlowFraction(0.3).withSlowDropProbability(0.2)
                .withMeanSlowNanos(60 * SECOND);
        List<SlowPeriod> generated = SlowSchedule.generate(knobs, 100, 2 * 3_600 * SECOND, 8);
        StringWriter trace = new StringWriter();
        SlowTrace.write(generated, trace);
        List<SlowPeriod> reRead = SlowTrace.read(new StringReader(trace.toString()));

        List<Long> fromModel = replay(generated, knobs, 8);
        List<Long> fromTrace = replay(reRead, knobs, 8);

        assertThat(fromTrace).isEqualTo(fromModel);
        assertThat(fromModel).contains(-1L);
        assertThat(replay(generated, knobs, 9)).isNotEqualTo(fromModel);
    }

    /** Drives a fixed sequence of sends; each result is a delay, or -1 for a drop. */
    private static List<Long> replay(List<SlowPeriod> periods, SlowNodeModel knobs, long seed) {
        ManualClock clock = new ManualClock();
        WideAreaLatencyModel m = model(100, periods, knobs, OneWayDelay.DEFAULT_JITTER_FRACTION, seed, clock);
        SplittableRandom traffic = new SplittableRandom(1234);
        List<Long> out = new ArrayList<>();
        for (int i = 0; i < 20_000; i++) {
            clock.advance(traffic.nextLong(0, 500 * MS));
            Address from = node(traffic.nextInt(100));
            Address to = node(traffic.nextInt(100));
            out.add(m.drops(from, to, null) ? -1L : m.delayNanos(from, to, null));
        }
        return out;
    }

    @Test
    void dropsHappenOnlyInDropPeriodsAtTheirRate() {
        ManualClock clock = new ManualClock();
        List<SlowPeriod> periods = List.of(
                new SlowPeriod(5, 10 * SECOND, 20 * SECOND, new Distribution.Drop(1)),
                new SlowPeriod(6, 0, 100_000 * SECOND, new Distribution.Drop(0.3)));
        WideAreaLatencyModel m = model(10, periods, QUIET, 0, 10, clock);

        clock.set(5 * SECOND);
        assertThat(m.drops(node(0), node(5), null)).isFalse();
        clock.set(15 * SECOND);
        assertThat(m.drops(node(0), node(5), null)).isTrue();
        assertThat(m.drops(node(0), node(4), null)).isFalse();
        clock.set(20 * SECOND);
        assertThat(m.drops(node(0), node(5), null)).isFalse();
        assertThat(m.isSlow(5, 15 * SECOND)).isTrue();

        int dropped = 0;
        for (int i = 0; i < 10_000; i++) {
            clock.advance(SECOND);
            dropped += m.drops(node(0), node(6), null) ? 1 : 0;
        }
        assertThat(dropped).isBetween(2_850, 3_150);
    }

    @Test
    void askingAboutDropsWithoutDropPeriodsChangesNoDelay() {
        List<SlowPeriod> periods = SlowSchedule.generate(SlowNodeModel.defaults().withSlowFraction(0.3), 20,
                3_600 * SECOND, 11);
        ManualClock clockA = new ManualClock();
        ManualClock clockB = new ManualClock();
        WideAreaLatencyModel asked = model(20, periods, SlowNodeModel.defaults(), 0.1, 11, clockA);
        WideAreaLatencyModel notAsked = model(20, periods, SlowNodeModel.defaults(), 0.1, 11, clockB);
        SplittableRandom traffic = new SplittableRandom(5);

        for (int i = 0; i < 5_000; i++) {
            long step = traffic.nextLong(0, SECOND);
            clockA.advance(step);
            clockB.advance(step);
            Address from = node(traffic.nextInt(20));
            Address to = node(traffic.nextInt(20));
            assertThat(asked.drops(from, to, null)).isFalse();
            assertThat(asked.delayNanos(from, to, null)).isEqualTo(notAsked.delayNanos(from, to, null));
        }
    }

    @Test
    void overlappingDelayPeriodsAddUp() {
        ManualClock clock = new ManualClock();
        List<SlowPeriod> periods = List.of(
                new SlowPeriod(1, 0, 100 * SECOND, new Distribution.Fixed(200)),
                new SlowPeriod(1, 0, 50 * SECOND, new Distribution.Fixed(300)));
        WideAreaLatencyModel m = model(4, periods, QUIET, 0, 12, clock);
        long oneWay = oneWayNanos(m, 0, 1);

        assertThat(m.delayNanos(node(0), node(1), null)).isEqualTo(oneWay + 501 * MS);
        clock.set(60 * SECOND);
        assertThat(m.delayNanos(node(0), node(1), null)).isEqualTo(oneWay + 201 * MS);
    }

    @Test
    void rejectsMisuse() {
        WideAreaLatencyModel unattached = new WideAreaLatencyModel(PLANETLAB, HostAssignment.random(10, 490, 1),
                List.of(), QUIET, 1);
        assertThatThrownBy(() -> unattached.delayNanos(node(0), node(1), null))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("attach");

        WideAreaLatencyModel m = model(10, List.of(), QUIET, 0, 1, new ManualClock());
        assertThatThrownBy(() -> m.attach(new ManualClock())).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> m.delayNanos(node(0), node(10), null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not one of the 10");
        assertThatThrownBy(() -> m.delayNanos(new Address("x", 0), node(1), null))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> m.isSlow(10, 0)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> new WideAreaLatencyModel(PLANETLAB, HostAssignment.random(10, 490, 1),
                List.of(new SlowPeriod(10, 0, 1, new Distribution.Fixed(1))), QUIET, 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("node 10");
        assertThatThrownBy(() -> new WideAreaLatencyModel(PLANETLAB, HostAssignment.random(10, 491, 1), List.of(),
                QUIET, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new WideAreaLatencyModel(PLANETLAB, HostAssignment.random(10, 490, 1), List.of(),
                QUIET, -0.1, 1)).isInstanceOf(IllegalArgumentException.class);
    }
}
