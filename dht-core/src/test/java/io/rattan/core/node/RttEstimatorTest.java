package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The estimator keeps its timeout as doublings since the last sample; this checks it against the stored timeout it
 * replaced (doubled and clamped at each expiry), step by step, so that no run's timers move.
 */
class RttEstimatorTest {

    private static final long MS = 1_000_000L;

    /** The estimator as it was: the timeout stored, the bounds its own. */
    private static final class Stored {
        long srtt = -1;
        long rttvar;
        long rto;
        final RttEstimator.Bounds b;

        Stored(RttEstimator.Bounds b) {
            this.b = b;
            rto = b.initialNanos();
        }

        void sample(long rttNanos) {
            long r = Math.max(0, rttNanos);
            if (srtt < 0) {
                srtt = r;
                rttvar = r / 2;
            } else {
                rttvar += (Math.abs(srtt - r) - rttvar) / 4;
                srtt += r < srtt / 2 ? (r - srtt) / 2 : (r - srtt) / 8;
            }
            rto = clamp(srtt + 4 * rttvar + 10 * MS);
        }

        void backoff() {
            rto = clamp(rto * 2);
        }

        private long clamp(long v) {
            return Math.max(b.minNanos(), Math.min(b.maxNanos(), v));
        }
    }

    @Test
    void theTimeoutIsTheStoredOneAfterAnySequenceOfSamplesAndTimeouts() {
        SplittableRandom random = new SplittableRandom(35);
        RttEstimator.Bounds[] bounds = {new RttEstimator.Bounds(1000 * MS, 100 * MS, 5000 * MS),
            new RttEstimator.Bounds(5000 * MS, 20 * MS, 5000 * MS), new RttEstimator.Bounds(9000 * MS, 1, 8000 * MS)};
        for (RttEstimator.Bounds b : bounds) {
            for (int run = 0; run < 200; run++) {
                RttEstimator e = new RttEstimator();
                Stored s = new Stored(b);
                for (int step = 0; step < 300; step++) {
                    if (random.nextInt(3) == 0) {
                        long rtt = random.nextInt(4) == 0 ? random.nextLong(20_000 * MS) : random.nextLong(400 * MS);
                        e.sample(rtt);
                        s.sample(rtt);
                    } else {
                        e.backoff(b);
                        s.backoff();
                    }
                    assertThat(e.rtoNanos(b)).as("bounds %s, run %d, step %d", b, run, step).isEqualTo(s.rto);
                    assertThat(e.srttNanos()).isEqualTo(s.srtt);
                }
            }
        }
    }

    @Test
    void backingOffStopsCountingAtTheCap() {
        RttEstimator.Bounds b = new RttEstimator.Bounds(1000 * MS, 100 * MS, 5000 * MS);
        RttEstimator e = new RttEstimator();
        for (int i = 0; i < 10_000; i++) {
            e.backoff(b);
        }
        assertThat(e.rtoNanos(b)).isEqualTo(5000 * MS);
        e.sample(50 * MS);
        assertThat(e.rtoNanos(b)).isEqualTo(Math.max(100 * MS, 50 * MS + 4 * 25 * MS + 10 * MS));
    }
}
