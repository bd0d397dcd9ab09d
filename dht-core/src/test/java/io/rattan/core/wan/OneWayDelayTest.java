package io.rattan.core.wan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.SplittableRandom;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

class OneWayDelayTest {

    /** A generator that fails the test if anything draws from it. */
    private static final RandomGenerator NO_DRAWS = () -> {
        throw new AssertionError("drew from the generator");
    };

    @Test
    void withoutJitterItIsHalfTheRoundTripAndDrawsNothing() {
        assertThat(OneWayDelay.nanos(80, 0, NO_DRAWS)).isEqualTo(40_000_000L);
        assertThat(OneWayDelay.nanos(0.175, 0, NO_DRAWS)).isEqualTo(87_500L);
        assertThat(OneWayDelay.nanos(0, 0, NO_DRAWS)).isZero();
    }

    /** The simulator's formula, written out: one Gaussian per delay, σ a fraction of the half round trip. */
    @Test
    void withJitterItDrawsOneGaussianPerDelay() {
        SplittableRandom drawn = new SplittableRandom(5);
        SplittableRandom expected = new SplittableRandom(5);
        for (int i = 0; i < 1_000; i++) {
            double half = 135.0 * 1e6 / 2;
            long want = Math.max(0, Math.round(half + expected.nextGaussian() * 0.10 * half));
            assertThat(OneWayDelay.nanos(135.0, 0.10, drawn)).isEqualTo(want);
        }
    }

    @Test
    void jitterIsCentredOnHalfTheRoundTripWithSigmaTheFraction() {
        SplittableRandom random = new SplittableRandom(9);
        int n = 20_000;
        double sum = 0;
        double squares = 0;
        for (int i = 0; i < n; i++) {
            double ms = OneWayDelay.nanos(100, 0.10, random) / 1e6;
            sum += ms;
            squares += ms * ms;
        }
        double mean = sum / n;
        double sigma = Math.sqrt(squares / n - mean * mean);
        assertThat(mean).isBetween(49.8, 50.2);
        assertThat(sigma).isBetween(4.8, 5.2);
    }

    @Test
    void aLargeNegativeDrawIsClampedAtZero() {
        RandomGenerator minusTwelveSigma = new RandomGenerator() {
            @Override
            public long nextLong() {
                return 0;
            }

            @Override
            public double nextGaussian() {
                return -12;
            }
        };
        assertThat(OneWayDelay.nanos(100, 0.10, minusTwelveSigma)).isZero();
    }

    @Test
    void checkJitterTakesFiniteNonNegativeFractionsOnly() {
        assertThat(OneWayDelay.checkJitter(0)).isZero();
        assertThat(OneWayDelay.checkJitter(OneWayDelay.DEFAULT_JITTER_FRACTION)).isEqualTo(0.10);
        for (double bad : new double[] {-0.01, Double.NaN, Double.POSITIVE_INFINITY}) {
            assertThatThrownBy(() -> OneWayDelay.checkJitter(bad)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("jitterFraction");
        }
    }
}
