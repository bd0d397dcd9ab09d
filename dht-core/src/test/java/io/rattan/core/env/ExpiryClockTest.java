package io.rattan.core.env;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.core.store.ManualTestClock;
import io.rattan.core.store.MemoryStore;
import org.junit.jupiter.api.Test;

/** The expiry clock ignores wall-clock jumps, never goes back (across restarts too) and is corrected by peers. */
class ExpiryClockTest {

    private static final long T0 = 1_700_000_000_000L;
    private static final long HOUR = 3_600_000L;
    private static final long S = ExpiryClock.SKEW_BOUND_MILLIS;

    private final ManualTestClock wall = new ManualTestClock(T0);
    private final MemoryStore store = new MemoryStore(wall::epochMillis);

    private ExpiryClock boot() {
        ExpiryClock c = new ExpiryClock(wall, S);
        c.attach(store);
        return c;
    }

    /** Five hosts, as many as may decide before peers have confirmed a clock. */
    private static void confirmByPeers(ExpiryClock c, long peerMillis) {
        for (int i = 0; i < 5; i++) {
            c.peerTime("peer" + i, peerMillis, 0);
        }
    }

    @Test
    void aWallClockStepEitherWayIsIgnoredAndTimeGoesOnByTheMonotonicClock() {
        ExpiryClock c = boot();
        assertThat(c.epochMillis()).isEqualTo(T0);
        wall.advanceMillis(1000);
        wall.setEpochMillis(wall.epochMillis() - HOUR);
        assertThat(c.epochMillis()).as("a step back is ignored").isEqualTo(T0 + 1000);
        wall.advanceMillis(1000);
        assertThat(c.epochMillis()).isEqualTo(T0 + 2000);
        wall.setEpochMillis(T0 + 2000 + HOUR);
        assertThat(c.epochMillis()).as("a step forward is ignored").isEqualTo(T0 + 2000);
        wall.setEpochMillis(T0 + 2000 + S / 2);
        assertThat(c.epochMillis()).as("a change within S is followed (NTP's slew)").isEqualTo(T0 + 2000 + S / 2);
    }

    @Test
    void itNeverGoesBackNotEvenAcrossARestartOnAClockSetBack() {
        ExpiryClock c = boot();
        confirmByPeers(c, T0);
        wall.advanceMillis(10_000);
        long before = c.epochMillis();
        assertThat(store.clockMark()).as("the mark is persisted ahead of the readings").isGreaterThanOrEqualTo(before);
        wall.setEpochMillis(wall.epochMillis() - HOUR);
        ExpiryClock restarted = boot();
        assertThat(restarted.epochMillis()).as("it starts at its persisted mark").isGreaterThanOrEqualTo(before);
    }

    @Test
    void aClockRestartedMoreThanSBehindItsMarkIsInDoubtAndStampsNothingUntilPeersConfirmIt() {
        ExpiryClock c = boot();
        confirmByPeers(c, T0);
        wall.advanceMillis(10_000);
        c.epochMillis();
        // Down for ten seconds, and its wall clock set back an hour meanwhile: it runs from its mark.
        wall.advanceMillis(10_000);
        wall.setEpochMillis(wall.epochMillis() - HOUR);
        ExpiryClock restarted = boot();
        assertThat(restarted.inDoubt()).as("behind the true time by its downtime, for all it knows").isTrue();
        restarted.peerTime("peer0", T0 + 20_000, 0);
        assertThat(restarted.mayStamp()).as("a peer answered, but it booted behind its mark").isFalse();
        confirmByPeers(restarted, T0 + 20_000);
        assertThat(restarted.inDoubt()).isFalse();
        assertThat(restarted.mayStamp()).isTrue();
        assertThat(restarted.epochMillis()).as("the peers' time").isBetween(T0 + 20_000 - S, T0 + 20_000 + S);
    }

    @Test
    void aQuickRestartWithinSOfItsMarkIsNotInDoubt() {
        ExpiryClock c = boot();
        c.epochMillis();
        assertThat(boot().inDoubt()).as("the mark is S/2 ahead of the last reading").isFalse();
    }

    @Test
    void anUnsettledClockMayStampOnceAPeerAnsweredAndNoneSaysItIsOff() {
        ExpiryClock c = boot();
        assertThat(c.mayStamp()).as("no peer answered yet: its clock may be anything").isFalse();
        c.peerTime("starting", 0, 0);
        assertThat(c.mayStamp()).as("a peer of a starting cluster, telling no time").isTrue();
        c.peerTime("peer1", T0 + HOUR, 0);
        assertThat(c.mayStamp()).as("a peer an hour ahead").isFalse();
        ExpiryClock agreed = boot();
        agreed.peerTime("peer0", T0 + S / 2, 0);
        assertThat(agreed.mayStamp()).as("a peer within S").isTrue();
    }

    @Test
    void aClockThatBootsAheadPurgesNothingUntilPeersConfirmItAndThenGoesBackToThem() {
        wall.setEpochMillis(T0 + HOUR);
        ExpiryClock c = boot();
        assertThat(c.settled()).as("not confirmed since boot: nothing may be purged").isFalse();
        assertThat(store.clockMark()).isZero();
        confirmByPeers(c, T0);
        assertThat(c.settled()).isTrue();
        assertThat(c.epochMillis()).as("the peers' time").isBetween(T0, T0 + S);
    }

    @Test
    void aClockIsInDoubtOnlyUnsettledAndOnceAPeerSaysItIsOffByMoreThanS() {
        wall.setEpochMillis(T0 + HOUR);
        ExpiryClock c = boot();
        assertThat(c.inDoubt()).as("no peer heard: a cluster's start").isFalse();
        c.peerTime("peer0", T0 + HOUR + S, 0);
        assertThat(c.inDoubt()).as("within S").isFalse();
        c.peerTime("peer1", T0, 0);
        assertThat(c.inDoubt()).as("a peer an hour behind").isTrue();
        c.peerTime("peer2", T0, 0);
        assertThat(c.settled()).as("three hosts that disagree: it waits for five").isFalse();
        c.peerTime("peer3", T0, 0);
        c.peerTime("peer4", T0, 0);
        assertThat(c.settled()).isTrue();
        assertThat(c.inDoubt()).as("set right and settled").isFalse();
    }

    @Test
    void aClockThatBootsBehindItsPeersCatchesUpAtOnce() {
        wall.setEpochMillis(T0 - HOUR);
        ExpiryClock c = boot();
        confirmByPeers(c, T0);
        assertThat(c.epochMillis()).as("forward at once: peers had not confirmed it since boot").isEqualTo(T0);
    }

    @Test
    void aNodeAloneWithAClockBehindCatchesUpAtOnceWhenItFirstHearsPeers() {
        wall.setEpochMillis(T0 - HOUR);
        ExpiryClock c = boot();
        wall.advanceMillis(30_000);
        c.epochMillis();
        assertThat(c.settled()).as("settled alone, but no peer confirmed it").isTrue();
        confirmByPeers(c, T0 + 30_000);
        assertThat(c.epochMillis()).isEqualTo(T0 + 30_000);
    }

    @Test
    void aClockAheadOfItsPeersHoldsStillOnceSettledThenFollowsThemNotAnHourBehind() {
        // Boots an hour ahead, alone: settled after 30 s by a wrong clock (outside the promise).
        wall.setEpochMillis(T0 + HOUR);
        ExpiryClock c = boot();
        wall.advanceMillis(30_000);
        long held = c.epochMillis();
        assertThat(c.settled()).isTrue();
        long trueTime = T0 + 30_000;
        confirmByPeers(c, trueTime);
        wall.advanceMillis(5000);
        trueTime += 5000;
        assertThat(c.epochMillis()).as("once settled it never goes back: it holds still").isEqualTo(held);
        // The peers keep telling the true time while it holds: their offsets are measured against the corrected
        // time, not the held reading, so they do not push the clock back another hour.
        for (int round = 0; round < 3; round++) {
            wall.advanceMillis(1000);
            trueTime += 1000;
            confirmByPeers(c, trueTime);
        }
        wall.advanceMillis(HOUR);
        trueTime += HOUR;
        assertThat(c.epochMillis()).as("true time has caught up with the hold: it follows it")
                .isBetween(trueTime - S, trueTime + S);
    }

    @Test
    void onceConfirmedAMajorityOfPeersAnHourAheadMovesItForwardByAtMostTwoSAtOnce() {
        ExpiryClock c = boot();
        confirmByPeers(c, T0);
        // Five lying peers, an hour ahead, answering as often as they like.
        for (int i = 0; i < 50; i++) {
            for (int p = 0; p < 5; p++) {
                c.peerTime("liar" + p, T0 + HOUR, 0);
            }
        }
        assertThat(c.epochMillis()).as("one correction of 2 S, then nothing until the allowance refills")
                .isEqualTo(T0 + 2 * S);
    }

    @Test
    void onceConfirmedWrongPeersDragItForwardByAtMostTwoSAMinute() {
        ExpiryClock c = boot();
        confirmByPeers(c, T0);
        long minutes = 10;
        for (long second = 1; second <= minutes * 60; second++) {
            wall.advanceMillis(1000);
            for (int p = 0; p < 5; p++) {
                // Always an hour ahead of the true time.
                c.peerTime("liar" + p, T0 + second * 1000 + HOUR, 0);
            }
        }
        long ahead = c.epochMillis() - (T0 + minutes * 60_000);
        assertThat(ahead).as("2 S at once, then 2 S per minute: not an hour")
                .isPositive()
                .isLessThanOrEqualTo(2 * S + minutes * 2 * S);
        assertThat(ahead).as("the allowance is used as it refills").isGreaterThan(minutes * 2 * S - 2 * S);
    }

    @Test
    void aSmallForwardCorrectionOnceConfirmedIsMadeWhole() {
        wall.setEpochMillis(T0 - 800);
        ExpiryClock c = boot();
        wall.advanceMillis(30_000);
        c.epochMillis();
        confirmByPeers(c, T0 + 30_000 - 800);
        // The wall clock and the expiry clock are both 800 ms behind the peers, who now know better (say, they
        // were corrected themselves): 800 ms is within the allowance of 2 S, so it is made at once.
        confirmByPeers(c, T0 + 30_000);
        assertThat(c.epochMillis()).isEqualTo(T0 + 30_000);
    }

    @Test
    void onePeerAnsweringOftenCountsOnce() {
        ExpiryClock c = boot();
        confirmByPeers(c, T0);
        for (int i = 0; i < 5; i++) {
            c.peerTime("wrong", T0 + HOUR, 0);
        }
        assertThat(c.epochMillis()).as("the median is over distinct peers").isEqualTo(T0);
    }

    @Test
    void aNodeAloneSettlesAfterThirtySeconds() {
        ExpiryClock c = boot();
        wall.advanceMillis(29_000);
        assertThat(c.epochMillis()).isEqualTo(T0 + 29_000);
        assertThat(c.settled()).isFalse();
        wall.advanceMillis(1_000);
        c.epochMillis();
        assertThat(c.settled()).isTrue();
    }

    @Test
    void aFirstCorrectionOfMoreThanTwoHoursIsRefusedAndNothingIsPurgedOrPersistedByIt() {
        ExpiryClock c = boot();
        // Three hosts that say it is a year later: lying, or this machine's clock needs setting.
        confirmByPeers(c, T0 + 365 * 24 * HOUR);
        assertThat(c.epochMillis()).as("not moved").isEqualTo(T0);
        assertThat(c.settled()).as("unconfirmed: nothing purged, no mark persisted").isFalse();
        assertThat(store.clockMark()).isZero();
        confirmByPeers(c, T0 + ExpiryClock.FIRST_CORRECTION_MAX_MILLIS + 2 * S);
        assertThat(c.epochMillis()).as("just beyond the bound: refused too").isEqualTo(T0);
        confirmByPeers(c, T0 - 365 * 24 * HOUR);
        assertThat(c.epochMillis()).as("backward alike").isEqualTo(T0);
        assertThat(c.settled()).isFalse();
        confirmByPeers(c, T0 + ExpiryClock.FIRST_CORRECTION_MAX_MILLIS - 2 * S);
        assertThat(c.epochMillis()).as("within the bound: made whole")
                .isEqualTo(T0 + ExpiryClock.FIRST_CORRECTION_MAX_MILLIS - 2 * S);
        assertThat(c.settled()).isTrue();
    }

    @Test
    void aClockWhoseFirstCorrectionWasRefusedNeverSettlesAloneAndStaysInDoubt() {
        wall.setEpochMillis(T0 + 3 * HOUR);
        ExpiryClock c = boot();
        confirmByPeers(c, T0);
        wall.advanceMillis(31_000);
        c.epochMillis();
        assertThat(c.settled()).as("known to be 3 h off: 30 s without samples settles nothing").isFalse();
        assertThat(c.inDoubt()).isTrue();
        assertThat(store.clockMark()).isZero();

        ExpiryClock alone = boot();
        wall.advanceMillis(31_000);
        alone.epochMillis();
        assertThat(alone.settled()).as("settled alone, 3 h ahead").isTrue();
        confirmByPeers(alone, T0 + 62_000);
        assertThat(alone.settled()).as("unsettled again once peers say it is 3 h off").isFalse();
        assertThat(alone.inDoubt()).isTrue();
    }

    @Test
    void twoHostsThatAgreeSettleTheClockOnceNoThirdHasBeenHeardForThirtySeconds() {
        wall.setEpochMillis(T0 - 10 * S);
        ExpiryClock c = boot();
        for (int second = 0; second <= 29; second++) {
            c.peerTime("hostA", wall.epochMillis() + 10 * S, 0);
            c.peerTime("hostB", wall.epochMillis() + 10 * S + S, 0);
            if (second < 29) {
                wall.advanceMillis(1000);
            }
        }
        assertThat(c.settled()).as("29 s: a third host may still answer").isFalse();
        wall.advanceMillis(1000);
        c.peerTime("hostA", wall.epochMillis() + 10 * S, 0);
        assertThat(c.settled()).isTrue();
        assertThat(c.epochMillis()).as("corrected by the lower of the two, which agree within 2 S")
                .isEqualTo(wall.epochMillis() + 10 * S);
    }

    @Test
    void twoHostsAnHourAheadAmongThreeDoNotMoveABootingClockFiveHostsDecide() {
        ExpiryClock c = boot();
        c.peerTime("liarA", T0 + HOUR, 0);
        c.peerTime("liarB", T0 + HOUR, 0);
        c.peerTime("hostA", T0, 0);
        assertThat(c.epochMillis()).as("three hosts that disagree decide nothing").isEqualTo(T0);
        assertThat(c.settled()).isFalse();
        c.peerTime("hostB", T0, 0);
        c.peerTime("hostC", T0, 0);
        assertThat(c.settled()).as("five hosts: their median").isTrue();
        assertThat(c.epochMillis()).isEqualTo(T0);
        for (int i = 0; i < 10; i++) {
            c.peerTime("liarA", T0 + HOUR, 0);
            c.peerTime("liarB", T0 + HOUR, 0);
        }
        assertThat(c.epochMillis()).as("the two liars, heard again and again, are two of five").isEqualTo(T0);

        ExpiryClock old = new ExpiryClock(wall, S, true);
        old.peerTime("liarA", T0 + HOUR, 0);
        old.peerTime("liarB", T0 + HOUR, 0);
        old.peerTime("hostA", T0, 0);
        assertThat(old.epochMillis()).as("planted bug: the first three hosts decide").isEqualTo(T0 + HOUR);
    }

    @Test
    void theFewHostsThatTellATimeWhileAClusterStartsDoNotSetItsClock() {
        ExpiryClock c = boot();
        for (int second = 0; second < 40; second++) {
            for (int h = 0; h < 8; h++) {
                c.peerTime("starting" + h, 0, 0);
            }
            for (int liar = 0; liar < 4; liar++) {
                // Four that agree, an hour ahead: before, three that agreed decided.
                c.peerTime("liar" + liar, wall.epochMillis() + HOUR, 0);
            }
            wall.advanceMillis(1000);
        }
        assertThat(c.epochMillis()).as("four of the last nine heard tell a time: not most")
                .isEqualTo(wall.epochMillis());
        assertThat(c.settled()).as("settled alone after 30 s, as a starting cluster's nodes all do").isTrue();
        for (int h = 0; h < 5; h++) {
            c.peerTime("starting" + h, wall.epochMillis(), 0);
        }
        c.peerTime("liar0", wall.epochMillis() + HOUR, 0);
        assertThat(c.epochMillis()).as("once the others tell their time, the four are outvoted")
                .isEqualTo(wall.epochMillis());
    }

    @Test
    void aCorrectionKeepsTheHostsItWasMadeBy() {
        for (boolean threeHostsDecide : new boolean[] {false, true}) {
            wall.setEpochMillis(T0 - 10 * S);
            ExpiryClock c = new ExpiryClock(wall, S, threeHostsDecide);
            // As many hosts as each rule needs to correct a clock peers have not confirmed.
            for (int h = 0; h < (threeHostsDecide ? 3 : 5); h++) {
                c.peerTime("host" + h, T0, 0);
            }
            assertThat(c.epochMillis()).as("the hosts correct it").isEqualTo(T0);
            c.peerTime("liarA", T0 + HOUR, 0);
            c.peerTime("liarB", T0 + HOUR, 0);
            c.peerTime("host0", T0, 0);
            // Kept and moved with the clock, the three outvote the two; started afresh, the next three heard decide
            // (by 2 S: forward is capped once confirmed).
            assertThat(c.epochMillis()).as("the first three hosts decide: " + threeHostsDecide)
                    .isEqualTo(threeHostsDecide ? T0 + 2 * S : T0);
        }
    }

    @Test
    void oneHostAloneNeverSettlesTheClock() {
        ExpiryClock c = boot();
        for (int second = 0; second < 120; second++) {
            wall.advanceMillis(1000);
            c.peerTime("onlyHost", wall.epochMillis() + HOUR, 0);
        }
        assertThat(c.settled()).isFalse();
        assertThat(c.epochMillis()).as("not moved by it").isEqualTo(wall.epochMillis());
    }

    @Test
    void twoHostsThatDisagreeSettleNothingAndANewHostRestartsTheWait() {
        ExpiryClock c = boot();
        wall.advanceMillis(20_000);
        c.peerTime("hostA", wall.epochMillis(), 0);
        c.peerTime("hostB", wall.epochMillis() + HOUR, 0);
        wall.advanceMillis(40_000);
        c.peerTime("hostA", wall.epochMillis(), 0);
        assertThat(c.settled()).as("one says an hour later: no agreement").isFalse();
        assertThat(c.inDoubt()).isTrue();
        ExpiryClock d = boot();
        d.peerTime("hostA", wall.epochMillis(), 0);
        wall.advanceMillis(25_000);
        d.peerTime("hostB", wall.epochMillis(), 0);
        wall.advanceMillis(25_000);
        d.peerTime("hostA", wall.epochMillis(), 0);
        assertThat(d.settled()).as("hostB is 25 s new: the wait starts again").isFalse();
        wall.advanceMillis(5_000);
        d.peerTime("hostB", wall.epochMillis(), 0);
        assertThat(d.settled()).isTrue();
    }
}
