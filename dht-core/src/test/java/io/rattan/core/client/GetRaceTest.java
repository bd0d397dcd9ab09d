package io.rattan.core.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Bytes;
import io.rattan.api.GetOptions;
import io.rattan.api.RoutingMode;
import io.rattan.api.Status;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import io.rattan.core.msg.RequestMessages.GetReply;
import io.rattan.core.msg.RequestMessages.ValueEntry;
import io.rattan.core.virtual.VirtualScheduler;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** Races in virtual time: which copies go out when, and which answer wins. */
class GetRaceTest {

    private static final long MS = 1_000_000L;
    private static final Message OK = new GetReply(Status.OK, List.of(new ValueEntry(Bytes.utf8("v"), 60_000)),
            Bytes.EMPTY, 1, "");
    private static final Message EMPTY = new GetReply(Status.OK, List.of(), Bytes.EMPTY, 1, "");
    private static final Message FAIL = new ErrorReply(Status.TIMEOUT, "late");

    private final VirtualScheduler scheduler = new VirtualScheduler(0);
    private final List<Long> launchedAtMs = new ArrayList<>();
    private final List<Consumer<Message>> answers = new ArrayList<>();
    private final List<GetRace.Result> results = new ArrayList<>();

    private void start(GetOptions options, HedgeThreshold threshold) {
        GetRace.start(scheduler, scheduler, options, threshold, m -> m == OK || m == EMPTY, (copy, answer) -> {
            launchedAtMs.add(scheduler.nanoTime() / MS);
            answers.add(answer);
        }, results::add);
    }

    /** A threshold of exactly {@code ms} once warm: every recorded latency is {@code ms}. */
    private static HedgeThreshold warmAt(long ms) {
        HedgeThreshold t = new HedgeThreshold(0.95, MS, 10_000 * MS);
        for (int i = 0; i < HedgeThreshold.WINDOW; i++) {
            t.record(ms * MS);
        }
        return t;
    }

    private void answerAt(long ms, int copy, Message m) {
        scheduler.schedule(ms * MS - scheduler.nanoTime(), () -> answers.get(copy).accept(m));
    }

    @Test
    void aHedgedGetSendsNoSecondCopyWhenNothingIsLate() {
        start(GetOptions.of(RoutingMode.DELAY_AWARE).withHedge(true), warmAt(100));
        answerAt(99, 0, OK);
        scheduler.runFor(10_000 * MS);

        assertThat(launchedAtMs).containsExactly(0L);
        assertThat(results).singleElement().satisfies(r -> {
            assertThat(r.hedged()).isFalse();
            assertThat(r.winner()).isZero();
            assertThat(r.copiesSent()).isEqualTo(1);
            assertThat(r.latencyNanos()).isEqualTo(99 * MS);
        });
    }

    @Test
    void aHedgedGetSendsExactlyOneMoreCopyOnceTheThresholdPasses() {
        start(GetOptions.of(RoutingMode.DELAY_AWARE).withHedge(true), warmAt(100));
        scheduler.runFor(5_000 * MS);
        assertThat(launchedAtMs).containsExactly(0L, 100L);

        answerAt(5_050, 1, OK);
        answerAt(5_060, 0, OK);
        scheduler.runFor(10_000 * MS);
        assertThat(launchedAtMs).hasSize(2);
        assertThat(results).singleElement().satisfies(r -> {
            assertThat(r.hedged()).isTrue();
            assertThat(r.winner()).isEqualTo(1);
            assertThat(r.copiesSent()).isEqualTo(2);
        });
    }

    private void startWaiting(HedgeThreshold threshold, long... waitsMs) {
        long[] waits = java.util.Arrays.stream(waitsMs).map(ms -> ms * MS).toArray();
        GetRace.start(scheduler, scheduler, GetOptions.of(RoutingMode.DELAY_AWARE).withHedge(true), threshold, waits,
                m -> m == OK, (copy, answer) -> {
                    launchedAtMs.add(scheduler.nanoTime() / MS);
                    answers.add(answer);
                }, results::add);
    }

    @Test
    void aRaceGivenItsOwnHedgeWaitHedgesThenAndStillTeachesTheThreshold() {
        // The lowest of the last gets, all 100 ms so far.
        HedgeThreshold lowest = new HedgeThreshold(0.01, MS, 10_000 * MS);
        for (int i = 0; i < HedgeThreshold.WARMUP; i++) {
            lowest.record(100 * MS);
        }
        startWaiting(lowest, 30);
        scheduler.runFor(29 * MS);
        assertThat(launchedAtMs).containsExactly(0L);
        scheduler.runFor(MS);
        assertThat(launchedAtMs).as("the race's own wait, not the threshold's 100 ms").containsExactly(0L, 30L);

        answerAt(40, 1, OK);
        scheduler.runFor(1_000 * MS);
        assertThat(results).singleElement().satisfies(r -> {
            assertThat(r.hedged()).isTrue();
            assertThat(r.winner()).isEqualTo(1);
        });
        assertThat(lowest.thresholdNanos()).as("the 40 ms get was recorded").isEqualTo(40 * MS);
    }

    @Test
    void aChainOfHedgeWaitsSendsEachHedgeAfterTheCopyBeforeItAndNoMoreOnceAnAnswerWins() {
        startWaiting(warmAt(100), 30, 20);
        scheduler.runFor(1_000 * MS);
        assertThat(launchedAtMs).as("both hedges, the second 20 ms after the first").containsExactly(0L, 30L, 50L);

        launchedAtMs.clear();
        answers.clear();
        long t = scheduler.nanoTime() / MS;
        startWaiting(warmAt(100), 30, 20);
        answerAt(t + 40, 1, OK);
        scheduler.runFor(1_000 * MS);
        assertThat(launchedAtMs).as("the first hedge answered before the second was due")
                .containsExactly(t, t + 30);
        assertThat(results).last().satisfies(r -> {
            assertThat(r.copiesSent()).isEqualTo(2);
            assertThat(r.winner()).isEqualTo(1);
        });
    }

    @Test
    void aFirstCopyThatFailsAtOnceSendsTheFirstHedgeAtOnceAndTheRestOfTheChainKeepsItsWaits() {
        GetRace.start(scheduler, scheduler, GetOptions.of(RoutingMode.DELAY_AWARE).withHedge(true), warmAt(100),
                new long[] {30 * MS, 20 * MS, 10 * MS}, m -> m == OK, (copy, answer) -> {
                    launchedAtMs.add(scheduler.nanoTime() / MS);
                    answers.add(answer);
                    if (copy == 0) {
                        answer.accept(FAIL);
                    }
                }, results::add);
        scheduler.runFor(1_000 * MS);
        assertThat(launchedAtMs).containsExactly(0L, 0L, 20L, 30L);
    }

    @Test
    void aRaceRefusesHedgeWaitsThatDoNotMatchItsOptions() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> GetRace.start(scheduler, scheduler,
                GetOptions.of(RoutingMode.DELAY_AWARE), null, new long[] {MS}, m -> true, (c, a) -> { }, r -> { }))
                .isInstanceOf(IllegalArgumentException.class);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> GetRace.start(scheduler, scheduler,
                GetOptions.of(RoutingMode.DELAY_AWARE).withHedge(true), warmAt(100), new long[0], m -> true,
                (c, a) -> { }, r -> { })).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aFailedFirstCopySendsTheHedgeAtOnce() {
        start(GetOptions.of(RoutingMode.DELAY_AWARE).withHedge(true), warmAt(100));
        answerAt(10, 0, FAIL);
        scheduler.runFor(20 * MS);
        assertThat(launchedAtMs).containsExactly(0L, 10L);

        answerAt(30, 1, FAIL);
        scheduler.runFor(10_000 * MS);
        assertThat(launchedAtMs).hasSize(2);
        assertThat(results).singleElement().satisfies(r -> {
            assertThat(r.reply()).isSameAs(FAIL);
            assertThat(r.winner()).isEqualTo(-1);
        });
    }

    @Test
    void gGatewaysSendGCopiesAtOnceAndTheFirstGoodAnswerWins() {
        start(GetOptions.of(RoutingMode.DELAY_AWARE).withGateways(3), null);
        assertThat(launchedAtMs).containsExactly(0L, 0L, 0L);

        answerAt(5, 2, FAIL);
        answerAt(40, 1, OK);
        answerAt(60, 0, OK);
        scheduler.runFor(1_000 * MS);
        assertThat(results).singleElement().satisfies(r -> {
            assertThat(r.winner()).isEqualTo(1);
            assertThat(r.latencyNanos()).isEqualTo(40 * MS);
        });
    }

    @Test
    void theThresholdLearnsFromTheRacesItTimes() {
        HedgeThreshold threshold = new HedgeThreshold(0.5, MS, 10_000 * MS);
        for (int i = 0; i < HedgeThreshold.WARMUP; i++) {
            answers.clear();
            start(GetOptions.of(RoutingMode.DELAY_AWARE).withHedge(true), threshold);
            answerAt(scheduler.nanoTime() / MS + 30, 0, OK);
            scheduler.runFor(1_000 * MS);
        }
        assertThat(threshold.thresholdNanos()).isEqualTo(30 * MS);
    }

    @Test
    void aBadRequestIsFinalNoHedgeFollowsIt() {
        start(GetOptions.of(RoutingMode.DELAY_AWARE).withHedge(true), warmAt(100));
        Message refused = new ErrorReply(Status.BAD_REQUEST, "bad key");
        answerAt(10, 0, refused);
        scheduler.runFor(10_000 * MS);

        assertThat(launchedAtMs).as("no hedge: every gateway would refuse the same request").containsExactly(0L);
        assertThat(results).singleElement().satisfies(r -> {
            assertThat(r.reply()).isSameAs(refused);
            assertThat(r.winner()).isEqualTo(-1);
            assertThat(r.hedged()).isFalse();
        });
    }

    @Test
    void aRefusedCopyEndsARaceWhoseOtherCopiesAreStillOut() {
        start(GetOptions.of(RoutingMode.DELAY_AWARE).withGateways(2).withHedge(true), warmAt(100));
        answerAt(10, 1, new GetReply(Status.TOO_LARGE, List.of(), Bytes.EMPTY, 0, "too large"));
        answerAt(20, 0, OK);
        scheduler.runFor(10_000 * MS);

        assertThat(launchedAtMs).containsExactly(0L, 0L);
        assertThat(results).singleElement().satisfies(r -> assertThat(r.winner()).isEqualTo(-1));
    }

    /** A liar on one copy's path answers empty at once: the copy that finds the value wins, later. */
    @Test
    void anEmptyAnswerWaitsForTheOtherCopiesAndAValueFoundLaterWins() {
        start(GetOptions.of(RoutingMode.DELAY_AWARE).withGateways(3), null);
        answerAt(2, 1, EMPTY);
        answerAt(5, 2, FAIL);
        answerAt(40, 0, OK);
        scheduler.runFor(1_000 * MS);

        assertThat(results).singleElement().satisfies(r -> {
            assertThat(r.reply()).isSameAs(OK);
            assertThat(r.winner()).isZero();
            assertThat(r.latencyNanos()).isEqualTo(40 * MS);
        });
    }

    /** A key with no value: the race ends when the last copy answers, with the first empty answer; no hedge follows. */
    @Test
    void emptyEverywhereEndsWhenEveryCopyAnsweredAndSendsNoHedge() {
        HedgeThreshold threshold = warmAt(20);
        start(GetOptions.of(RoutingMode.DELAY_AWARE).withGateways(2).withHedge(true), threshold);
        answerAt(3, 0, EMPTY);
        answerAt(30, 1, EMPTY);
        scheduler.runFor(1_000 * MS);

        assertThat(launchedAtMs).as("no hedge after an answer, empty or not").containsExactly(0L, 0L);
        assertThat(results).singleElement().satisfies(r -> {
            assertThat(r.reply()).isSameAs(EMPTY);
            assertThat(r.winner()).isZero();
            assertThat(r.latencyNanos()).isEqualTo(30 * MS);
        });
        assertThat(threshold.thresholdNanos()).as("a miss teaches the threshold nothing").isEqualTo(20 * MS);
    }

    /** A copy lost after another answered empty: the race ends after twice the hedge threshold, not its timeout. */
    @Test
    void anEmptyAnswerWaitsForALostCopyOnlyTwiceTheHedgeThreshold() {
        start(GetOptions.of(RoutingMode.DELAY_AWARE).withGateways(2).withHedge(true), warmAt(20));
        answerAt(3, 1, EMPTY);
        scheduler.runFor(10_000 * MS);

        assertThat(results).singleElement().satisfies(r -> {
            assertThat(r.reply()).isSameAs(EMPTY);
            assertThat(r.latencyNanos()).isEqualTo(43 * MS);
        });
    }

    /** A copy answered at once, as a gateway that is the key's root does: every copy still goes out, and is judged. */
    @Test
    void aCopyAnsweredEmptyWhileTheCopiesGoOutDoesNotEndTheRace() {
        GetRace.start(scheduler, scheduler, GetOptions.of(RoutingMode.DELAY_AWARE).withGateways(3), null,
                m -> m == OK || m == EMPTY, (copy, answer) -> {
                    launchedAtMs.add(scheduler.nanoTime() / MS);
                    answers.add(answer);
                    if (copy == 0) {
                        answer.accept(EMPTY);
                    }
                }, results::add);
        assertThat(launchedAtMs).containsExactly(0L, 0L, 0L);
        answerAt(7, 2, OK);
        answerAt(9, 1, EMPTY);
        scheduler.runFor(1_000 * MS);

        assertThat(results).singleElement().satisfies(r -> assertThat(r.winner()).isEqualTo(2));
    }

    @Test
    void anEmptyAnswerAndFailuresEndWithTheEmptyAnswer() {
        start(GetOptions.of(RoutingMode.DELAY_AWARE).withGateways(2), null);
        answerAt(3, 1, EMPTY);
        answerAt(9, 0, FAIL);
        scheduler.runFor(1_000 * MS);

        assertThat(results).singleElement().satisfies(r -> {
            assertThat(r.reply()).isSameAs(EMPTY);
            assertThat(r.winner()).isEqualTo(1);
        });
    }
}
