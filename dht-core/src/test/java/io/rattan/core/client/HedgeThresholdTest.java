package io.rattan.core.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class HedgeThresholdTest {

    @Test
    void isTheCapUntilWarm() {
        HedgeThreshold t = new HedgeThreshold(0.9, 10, 1_000);
        for (int i = 0; i < HedgeThreshold.WARMUP - 1; i++) {
            t.record(50);
        }
        assertThat(t.thresholdNanos()).isEqualTo(1_000);
        t.record(50);
        assertThat(t.thresholdNanos()).isEqualTo(50);
    }

    @Test
    void isTheQuantileOfTheLastWindowClampedToFloorAndCap() {
        HedgeThreshold t = new HedgeThreshold(0.9, 10, 1_000);
        for (int i = 1; i <= 100; i++) {
            t.record(i);
        }
        // The window holds 37..100; its 90% quantile is the 58th of 64.
        assertThat(t.thresholdNanos()).isEqualTo(94);
        for (int i = 0; i < HedgeThreshold.WINDOW; i++) {
            t.record(1);
        }
        assertThat(t.thresholdNanos()).isEqualTo(10);
        for (int i = 0; i < HedgeThreshold.WINDOW; i++) {
            t.record(1_000_000);
        }
        // A sick period cannot switch hedging off.
        assertThat(t.thresholdNanos()).isEqualTo(1_000);
    }

    @Test
    void rejectsNonsense() {
        assertThatThrownBy(() -> new HedgeThreshold(1, 0, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new HedgeThreshold(0.5, 5, 1)).isInstanceOf(IllegalArgumentException.class);
    }
}
