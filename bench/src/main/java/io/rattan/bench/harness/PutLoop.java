package io.rattan.bench.harness;

import io.rattan.api.Id;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The puts of {@code rattan bench watch}: open loop at a rate, each to a random watched key, each value naming its
 * put ({@link WatchLatency#value}); at most {@value #IN_FLIGHT_MAX} in flight, so that a stalled target does not
 * gather puts without end.
 */
final class PutLoop {

    private static final int IN_FLIGHT_MAX = 1024;

    private final WatchTarget target;
    private final List<Id> keys;
    private final WatchLatency latency;
    private final int watchersPerKey;
    private final int valueBytes;
    private final int ttlSeconds;
    private final SplittableRandom random = new SplittableRandom(7);
    private final AtomicLong next = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();

    PutLoop(WatchTarget target, List<Id> keys, WatchLatency latency, int watchersPerKey, int valueBytes,
            int ttlSeconds) {
        this.target = target;
        this.keys = List.copyOf(keys);
        this.latency = latency;
        this.watchersPerKey = watchersPerKey;
        this.valueBytes = valueBytes;
        this.ttlSeconds = ttlSeconds;
    }

    /** {@code count} puts at {@code rate} a second, timed or not; returns once all were answered. */
    void run(int count, int rate, boolean timed) throws InterruptedException {
        Semaphore inFlight = new Semaphore(IN_FLIGHT_MAX);
        long start = System.nanoTime();
        for (int i = 0; i < count; i++) {
            long due = start + i * 1_000_000_000L / rate;
            long wait = due - System.nanoTime();
            if (wait > 0) {
                TimeUnit.NANOSECONDS.sleep(wait);
            }
            inFlight.acquire();
            long n = next.getAndIncrement();
            if (timed) {
                latency.started(n, watchersPerKey);
            }
            target.put(keys.get(random.nextInt(keys.size())), WatchLatency.value(n, valueBytes), ttlSeconds)
                    .whenComplete((ok, e) -> {
                        if (e == null) {
                            latency.acknowledged(n);
                        } else {
                            failed.incrementAndGet();
                        }
                        inFlight.release();
                    });
        }
        inFlight.acquire(IN_FLIGHT_MAX);
    }

    /** Puts that failed. */
    long failed() {
        return failed.get();
    }
}
