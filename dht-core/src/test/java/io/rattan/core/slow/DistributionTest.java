package io.rattan.core.slow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class DistributionTest {

    private static long[] samples(Distribution d, int n, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        long[] out = new long[n];
        for (int i = 0; i < n; i++) {
            out[i] = d.sampleNanos(random);
        }
        Arrays.sort(out);
        return out;
    }

    @Test
    void slowParetoHasItsMinimumMedianAndCap() {
        Distribution.Pareto slow = new Distribution.Pareto(50, 1.2, 30_000);
        long[] s = samples(slow, 200_000, 11);
        double medianMs = s[s.length / 2] / 1e6;

        assertThat(s[0]).isGreaterThanOrEqualTo(50_000_000L);
        assertThat(s[s.length - 1]).isEqualTo(30_000_000_000L);
        // Median of Pareto(xm, a) is xm * 2^(1/a): 89.1 ms here.
        assertThat(medianMs).isCloseTo(50 * Math.pow(2, 1 / 1.2), within(2.0));
        // P(X > 2 xm) = 2^-a; the cap (P = 600^-1.2 ≈ 4.6e-4) is hit, but rarely.
        long overTwiceMin = Arrays.stream(s).filter(v -> v > 100_000_000L).count();
        assertThat(overTwiceMin / (double) s.length).isCloseTo(Math.pow(2, -1.2), within(0.01));
        long atCap = Arrays.stream(s).filter(v -> v == 30_000_000_000L).count();
        assertThat(atCap).isBetween(40L, 150L);
    }

    @Test
    void healthyStallParetoHasItsMinimumAndMedian() {
        long[] s = samples(new Distribution.Pareto(100, 1.5, 5_000), 100_000, 12);

        assertThat(s[0]).isGreaterThanOrEqualTo(100_000_000L);
        assertThat(s[s.length - 1]).isLessThanOrEqualTo(5_000_000_000L);
        assertThat(s[s.length / 2] / 1e6).isCloseTo(100 * Math.pow(2, 1 / 1.5), within(3.0));
    }

    @Test
    void fixedAndDropAreWhatTheySay() {
        SplittableRandom random = new SplittableRandom(1);

        assertThat(new Distribution.Fixed(2.5).sampleNanos(random)).isEqualTo(2_500_000L);
        assertThat(new Distribution.Fixed(2.5).dropProbability()).isZero();
        assertThat(new Distribution.Drop(0.25).dropProbability()).isEqualTo(0.25);
        assertThat(new Distribution.Drop(0.25).delays()).isFalse();
        assertThat(new Distribution.Drop(0.25).sampleNanos(random)).isZero();
    }

    @Test
    void rejectsImpossibleParameters() {
        assertThatThrownBy(() -> new Distribution.Pareto(0, 1.2, 10)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Distribution.Pareto(50, 0, 100)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Distribution.Pareto(50, 1.2, 10)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Distribution.Pareto(50, Double.NaN, 100))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Distribution.Fixed(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Distribution.Drop(1.5)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Distribution.Drop(Double.NaN)).isInstanceOf(IllegalArgumentException.class);
    }
}
