package io.rattan.bench.harness;

import io.rattan.api.Id;
import io.rattan.bench.harness.OpStats.Outcome;
import io.rattan.bench.harness.Target.GetAnswer;
import io.rattan.bench.harness.Target.TargetFailure;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * One run of the latency harness: puts the population, then gets (open or closed loop) while a refresher keeps
 * the population alive, writing every interval to the run directory, until the duration is over or
 * {@link #requestStop()}. Latency counts from the intended start in open loop (so a stalled target cannot hide
 * the queue it causes), from the send in closed loop; a failed get counts at least at the timeout.
 *
 * <p>{@link #run()} runs on the caller's thread; {@link #requestStop()} may be called from any thread (e.g. a
 * shutdown hook).
 */
final class Harness {

    private static final int PUT_ATTEMPTS = 5;

    private final HarnessConfig config;
    private final Target target;
    private final Path runDir;
    private final PrintStream log;
    private final Population population;
    private final List<OpStats> gets = new ArrayList<>();
    private final OpStats puts = new OpStats("put");
    /** Gets that may be in flight: the open loop's connections, or one per closed-loop worker. */
    private final int permits;
    private final Semaphore inFlight;
    private final Semaphore putsInFlight;
    private final AtomicLong absentCounter = new AtomicLong();
    private volatile boolean stopRequested;
    private volatile long loadStartMillis;
    private volatile long loadEndMillis;
    private long startMillis;
    private int[] liveKeys;

    Harness(HarnessConfig config, Target target, Path runDir, String runId, PrintStream log) {
        this.config = config;
        this.target = target;
        this.runDir = runDir;
        this.log = log;
        this.population = new Population(runId, config.keys(), config.valuesPerKey(), config.valueBytes(),
                config.ttl());
        for (GetMode m : config.modes()) {
            String why = target.refuses(m);
            if (why != null) {
                throw new IllegalArgumentException("mode " + m.name() + ": " + why);
            }
            gets.add(new OpStats(m.name()));
        }
        this.permits = config.openLoop() ? config.connections() : config.workers();
        this.inFlight = new Semaphore(permits);
        this.putsInFlight = new Semaphore(config.connections());
    }

    List<OpStats> getStats() {
        return gets;
    }

    /** Wall-clock millis when the run (population puts) began. */
    long startMillis() {
        return startMillis;
    }

    /** Seconds from the run's start to the start of the get load. */
    double loadStartSeconds() {
        return (loadStartMillis - startMillis) / 1000.0;
    }

    /** Seconds from the run's start to the end of the get load. */
    double loadEndSeconds() {
        return (loadEndMillis - startMillis) / 1000.0;
    }

    /** Ends the run early; the run still writes its last interval. */
    void requestStop() {
        stopRequested = true;
    }

    boolean stopRequested() {
        return stopRequested;
    }

    /**
     * Runs to the end, writing {@code latency.hlog} and {@code counts.csv}; returns when everything in flight has
     * finished or timed out.
     */
    void run() throws IOException {
        startMillis = System.currentTimeMillis();
        long startNanos = System.nanoTime();
        List<String> names = new ArrayList<>();
        for (OpStats s : gets) {
            names.add(s.name());
        }
        LiveLine live = new LiveLine(log, names, config.duration(), config.liveEvery());
        try (RunLog runLog = new RunLog(runDir, startMillis, startNanos, gets, puts, live)) {
            Ticker ticker = new Ticker(runLog, config.interval(), this::requestStop);
            ticker.start();
            try {
                putPopulation();
                if (!stopRequested) {
                    loadStartMillis = System.currentTimeMillis();
                    long loadStart = System.nanoTime();
                    live.loadStarted(loadStart);
                    Thread refresher = new Thread(this::refreshLoop, "rattan-bench-refresh");
                    refresher.setDaemon(true);
                    refresher.start();
                    long end = loadStart + config.duration().toNanos();
                    if (config.openLoop()) {
                        openLoop(loadStart, end);
                    } else {
                        closedLoop(end);
                    }
                    loadEndMillis = System.currentTimeMillis();
                    refresher.interrupt();
                    awaitQuiet();
                } else {
                    loadStartMillis = System.currentTimeMillis();
                    loadEndMillis = loadStartMillis;
                }
            } finally {
                ticker.finish();
            }
        }
    }

    // ---- population

    private void putPopulation() {
        log.println("putting " + config.keys() + " keys x " + config.valuesPerKey() + " values of "
                + config.valueBytes() + " bytes, TTL " + config.ttl().toSeconds() + " s ...");
        log.flush();
        List<CompletableFuture<Boolean>> done = new ArrayList<>();
        for (int k = 0; k < config.keys() && !stopRequested; k++) {
            for (int v = 0; v < config.valuesPerKey(); v++) {
                done.add(putWithRetries(k, v, PUT_ATTEMPTS));
            }
        }
        for (CompletableFuture<Boolean> f : done) {
            f.join();
        }
        List<Integer> live = new ArrayList<>();
        for (int k = 0; k < config.keys(); k++) {
            if (population.everPut(k)) {
                live.add(k);
            }
        }
        liveKeys = live.stream().mapToInt(Integer::intValue).toArray();
        int lost = config.keys() - liveKeys.length;
        log.println("population put" + (lost == 0 ? "" : "; " + lost + " keys failed " + PUT_ATTEMPTS
                + " put attempts and are left out of the gets"));
        log.flush();
        if (liveKeys.length == 0 && config.absentShare() < 1) {
            throw new IllegalStateException("no key could be put: is the target up? see counts.csv for the puts");
        }
    }

    private CompletableFuture<Boolean> putWithRetries(int k, int v, int attemptsLeft) {
        return putOnce(k, v).thenCompose(ok -> {
            if (ok || attemptsLeft <= 1 || stopRequested) {
                return CompletableFuture.completedFuture(ok);
            }
            return CompletableFuture.supplyAsync(() -> null,
                    CompletableFuture.delayedExecutor(1, TimeUnit.SECONDS)).thenCompose(x ->
                    putWithRetries(k, v, attemptsLeft - 1));
        });
    }

    /** One measured put; completes with whether it succeeded, never exceptionally. */
    private CompletableFuture<Boolean> putOnce(int k, int v) {
        putsInFlight.acquireUninterruptibly();
        long sent = System.nanoTime();
        CompletableFuture<Void> f;
        try {
            f = target.put(population.id(k), population.value(k, v), population.ttl());
        } catch (RuntimeException e) {
            f = CompletableFuture.failedFuture(e);
        }
        return bounded(f).handle((x, e) -> {
            long took = System.nanoTime() - sent;
            putsInFlight.release();
            if (e == null) {
                population.putDone(k, v, sent);
                puts.record(Outcome.SUCCESS, took, took, 0, 0, 0);
                return true;
            }
            Outcome o = TargetFailure.of(e).timeout() ? Outcome.TIMEOUT : Outcome.ERROR;
            long counted = Math.max(took, config.timeout().toNanos());
            puts.record(o, counted, counted, 0, 0, 0);
            return false;
        });
    }

    /** Re-puts every value half a TTL after its last put, until interrupted. */
    private void refreshLoop() {
        while (!Thread.currentThread().isInterrupted()) {
            long now = System.nanoTime();
            for (int k : liveKeys) {
                for (int v = 0; v < config.valuesPerKey(); v++) {
                    if (population.due(k, v, now)) {
                        putOnce(k, v);
                    }
                }
            }
            try {
                Thread.sleep(250);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    // ---- gets

    private void openLoop(long start, long end) {
        SplittableRandom random = new SplittableRandom(config.seed());
        ModeOrder order = new ModeOrder(gets.size(), random.split());
        double meanGapNanos = 1e9 / config.rate();
        long intended = start;
        while (!stopRequested) {
            intended += (long) (-Math.log(1 - random.nextDouble()) * meanGapNanos);
            // The run ends on time even when the target has fallen behind: an overloaded target shows as a rate
            // below --rate and as corrected latencies, not as a run that never ends.
            if (intended >= end || System.nanoTime() >= end) {
                break;
            }
            long wait;
            while ((wait = intended - System.nanoTime()) > 0 && !stopRequested) {
                LockSupport.parkNanos(wait);
            }
            // A free connection first: while the target holds every one, sends fall behind their intended times,
            // and the corrected latency shows that queue.
            if (!acquire()) {
                break;
            }
            int mode = order.next();
            issueGet(mode, random, intended, System.nanoTime());
        }
    }

    private boolean acquire() {
        try {
            while (!inFlight.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                if (stopRequested) {
                    return false;
                }
            }
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private void closedLoop(long end) {
        List<Thread> workers = new ArrayList<>();
        SplittableRandom seeds = new SplittableRandom(config.seed());
        for (int w = 0; w < config.workers(); w++) {
            SplittableRandom random = seeds.split();
            Thread t = new Thread(() -> workerLoop(random, end), "rattan-bench-worker-" + w);
            t.setDaemon(true);
            workers.add(t);
            t.start();
        }
        for (Thread t : workers) {
            try {
                t.join();
            } catch (InterruptedException e) {
                requestStop();
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** Rounds of every mode, back to back, in a fresh random order each round: the OpenDHT study's method. */
    private void workerLoop(SplittableRandom random, long end) {
        int[] round = new int[gets.size()];
        while (!stopRequested && System.nanoTime() < end) {
            ModeOrder.shuffle(round, random);
            for (int mode : round) {
                if (stopRequested || System.nanoTime() >= end) {
                    return;
                }
                if (!acquire()) {
                    return;
                }
                long sent = System.nanoTime();
                CompletableFuture<Void> done = issueGet(mode, random, sent, sent);
                try {
                    // The get's own timeout ends it; this bound only guards against a target that never answers.
                    done.get(config.timeout().toMillis() * 2 + 5000, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                } catch (ExecutionException | TimeoutException e) {
                    // Already counted by issueGet's callback, or counted there once it ends.
                }
            }
        }
    }

    /**
     * Sends one get of a random key (or, at the absent share, a key nobody put) in mode {@code mode} and counts it
     * when it ends; releases one in-flight permit then.
     */
    private CompletableFuture<Void> issueGet(int mode, SplittableRandom random, long intendedNanos, long sentNanos) {
        int key;
        Id id;
        if (liveKeys.length == 0 || random.nextDouble() < config.absentShare()) {
            key = -1;
            id = population.absentId(absentCounter.incrementAndGet());
        } else {
            key = liveKeys[random.nextInt(liveKeys.length)];
            id = population.id(key);
        }
        OpStats stats = gets.get(mode);
        CompletableFuture<GetAnswer> f;
        try {
            f = target.get(id, config.modes().get(mode));
        } catch (RuntimeException e) {
            f = CompletableFuture.failedFuture(e);
        }
        return bounded(f).handle((answer, error) -> {
            long doneNanos = System.nanoTime();
            inFlight.release();
            long corrected = doneNanos - intendedNanos;
            long uncorrected = doneNanos - sentNanos;
            if (error != null) {
                fail(stats, TargetFailure.of(error).timeout() ? Outcome.TIMEOUT : Outcome.ERROR, corrected,
                        uncorrected);
            } else if (!population.matches(key, sentNanos, answer.values())) {
                fail(stats, Outcome.WRONG, corrected, uncorrected);
            } else {
                stats.record(Outcome.SUCCESS, corrected, uncorrected, answer.hops(), answer.messages(),
                        answer.bytes());
            }
            return null;
        });
    }

    /**
     * {@code f}, failed as a timeout if the target has not ended it within the timeout (plus a second for the target's
     * own timer to win): an HTTP client's timeout stops at the response headers, and OpenDHT's proxy streams a get's
     * values after sending them at once, so without this a stalled answer would never end, never count, and hold its
     * in-flight permit for good.
     */
    private <T> CompletableFuture<T> bounded(CompletableFuture<T> f) {
        return f.orTimeout(config.timeout().toMillis() + 1000, TimeUnit.MILLISECONDS);
    }

    /** A failed get counts at its timeout at least, in every percentile (DESIGN.md). */
    private void fail(OpStats stats, Outcome outcome, long corrected, long uncorrected) {
        long floor = config.timeout().toNanos();
        stats.record(outcome, Math.max(corrected, floor), Math.max(uncorrected, floor), 0, 0, 0);
    }

    /** Waits until every get and put in flight has ended (each is bounded by the timeout). */
    private void awaitQuiet() {
        long deadline = System.nanoTime() + config.timeout().toNanos() * 2 + TimeUnit.SECONDS.toNanos(5);
        while (System.nanoTime() < deadline && (inFlight.availablePermits() < permits
                || putsInFlight.availablePermits() < config.connections())) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
    }

    /** Writes an interval every {@code interval} on its own thread; {@link #finish} writes the last one. */
    private static final class Ticker extends Thread {
        private final RunLog runLog;
        private final long intervalNanos;
        private final Runnable onFailure;
        private volatile boolean finished;

        /** {@code onFailure} runs if the log cannot be written (a full disk): a run that records nothing must stop. */
        Ticker(RunLog runLog, Duration interval, Runnable onFailure) {
            super("rattan-bench-ticker");
            setDaemon(true);
            this.runLog = runLog;
            this.intervalNanos = interval.toNanos();
            this.onFailure = onFailure;
        }

        @Override
        public void run() {
            long next = System.nanoTime() + intervalNanos;
            while (!finished) {
                long wait = next - System.nanoTime();
                if (wait > 0) {
                    LockSupport.parkNanos(this, wait);
                    continue;
                }
                try {
                    synchronized (runLog) {
                        if (!finished) {
                            runLog.tick();
                        }
                    }
                } catch (UncheckedIOException e) {
                    System.err.println("rattan bench: cannot write the run's log, stopping: " + e.getMessage());
                    onFailure.run();
                    return;
                }
                next += intervalNanos;
            }
        }

        void finish() {
            synchronized (runLog) {
                finished = true;
                runLog.tick();
            }
            LockSupport.unpark(this);
        }
    }
}
