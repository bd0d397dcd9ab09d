package io.rattan.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class BackoffTest {

    private final Backoff backoff = new Backoff(Duration.ofMillis(50), Duration.ofSeconds(1));

    @Test
    void theCeilingDoublesUpToTheCap() {
        assertThat(backoff.ceilingNanos(1)).isEqualTo(Duration.ofMillis(50).toNanos());
        assertThat(backoff.ceilingNanos(2)).isEqualTo(Duration.ofMillis(100).toNanos());
        assertThat(backoff.ceilingNanos(5)).isEqualTo(Duration.ofMillis(800).toNanos());
        assertThat(backoff.ceilingNanos(6)).isEqualTo(Duration.ofSeconds(1).toNanos());
        assertThat(backoff.ceilingNanos(Integer.MAX_VALUE)).as("no overflow")
                .isEqualTo(Duration.ofSeconds(1).toNanos());
    }

    @Test
    void delaysAreFullJitterBelowTheCeiling() {
        SplittableRandom random = new SplittableRandom(42);
        long ceiling = backoff.ceilingNanos(3);
        long below = 0;
        for (int i = 0; i < 10_000; i++) {
            long d = backoff.delayNanos(3, random);
            assertThat(d).isBetween(0L, ceiling);
            if (d < ceiling / 2) {
                below++;
            }
        }
        assertThat(below).as("uniform over [0, ceiling]: about half below the middle").isBetween(4_000L, 6_000L);
    }

    @Test
    void nonsenseIsRefused() {
        assertThatThrownBy(() -> new Backoff(Duration.ofSeconds(2), Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> backoff.ceilingNanos(0)).isInstanceOf(IllegalArgumentException.class);
    }
}
