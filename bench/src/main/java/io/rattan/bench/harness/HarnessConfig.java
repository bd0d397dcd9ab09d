package io.rattan.bench.harness;

import java.time.Duration;
import java.util.List;

/**
 * How a run loads the target. Either open loop ({@code rate} gets/s, Poisson arrivals, at most
 * {@code connections} gets in flight) or closed loop ({@code workers} back-to-back callers).
 *
 * @param modes        the get modes, interleaved
 * @param keys         keys in the population
 * @param valuesPerKey values under each key
 * @param valueBytes   size of each value
 * @param ttl          the values' TTL; they are re-put every half TTL
 * @param absentShare  share of gets that ask for a key nobody put (0..1)
 * @param rate         open loop: total gets per second; 0 for closed loop
 * @param connections  open loop: most gets in flight (a send waits for a free one, as wrk2's connections do);
 *                     also bounds puts in flight
 * @param workers      closed loop: callers, each running rounds of every mode in a fresh random order
 * @param duration     how long the load runs, warm-up included
 * @param warmup       the first part of {@code duration} that the final table leaves out
 * @param interval     how often measurements are written to disk
 * @param liveEvery    how often the live line is printed
 * @param timeout      a get or put that takes longer fails (and counts at this latency at least)
 * @param seed         seeds key choice, arrivals and mode order
 */
record HarnessConfig(List<GetMode> modes, int keys, int valuesPerKey, int valueBytes, Duration ttl,
                     double absentShare, double rate, int connections, int workers, Duration duration,
                     Duration warmup, Duration interval, Duration liveEvery, Duration timeout, long seed) {

    HarnessConfig {
        modes = List.copyOf(modes);
        if (modes.isEmpty()) {
            throw new IllegalArgumentException("no get mode given");
        }
        if ((long) keys * valuesPerKey > 10_000_000L) {
            throw new IllegalArgumentException("at most 10,000,000 values (keys x values per key)");
        }
        if (absentShare < 0 || absentShare > 1) {
            throw new IllegalArgumentException("--absent-share must be 0..1, got " + absentShare);
        }
        if ((rate > 0) == (workers > 0)) {
            throw new IllegalArgumentException("give either --rate (open loop) or --workers (closed loop)");
        }
        if (rate < 0 || connections < 1 || workers < 0) {
            throw new IllegalArgumentException("--rate, --connections and --workers must be positive");
        }
        if (warmup.compareTo(duration) >= 0) {
            throw new IllegalArgumentException("--warmup (" + warmup + ") must be shorter than --duration ("
                    + duration + ")");
        }
        if (interval.toMillis() < 100 || timeout.toMillis() < 1) {
            throw new IllegalArgumentException("--interval must be at least 100ms and --timeout positive");
        }
    }

    boolean openLoop() {
        return rate > 0;
    }
}
