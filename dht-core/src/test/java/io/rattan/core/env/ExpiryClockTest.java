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

    private static void confirmByPeers(ExpiryClock c, long peerMillis) {
        for (int i = 0; i < 3; i++) {
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
    void aClockBehindItsPeersCatchesUpAndOneAheadHoldsStill() {
        ExpiryClock c = boot();
        confirmByPeers(c, T0);
        confirmByPeers(c, T0 + HOUR);
        assertThat(c.epochMillis()).as("forward at once").isEqualTo(T0 + HOUR);
        confirmByPeers(c, T0);
        wall.advanceMillis(5000);
        assertThat(c.epochMillis()).as("once settled it never goes back: it holds still").isEqualTo(T0 + HOUR);
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
}
