package io.rattan.core.client;

import io.rattan.api.GetOptions;
import io.rattan.api.Status;
import io.rattan.core.env.Cancellable;
import io.rattan.core.env.Clock;
import io.rattan.core.env.Scheduler;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import io.rattan.core.msg.RequestMessages.GetReply;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * One get raced through several gateways. The first {@code gateways} copies go out at once; a hedged race holds one
 * more copy back and sends it when the {@link HedgeThreshold} passes with no good answer, or as soon as every copy
 * sent so far has failed. A race may be given a chain of hedge waits instead (a one-hop get escalates from one
 * replica to the next, see {@link OneHopRouter#hedgeWaitsNanos}): each hedge copy goes when its wait, counted from
 * the copy before it, passes with no good answer. The first good answer that carries a value wins and the race ends;
 * copies still out are not cancelled on the wire, their answers are ignored (and counted as cost by whoever counts).
 * A good answer with no value ends the race only once every copy sent has answered, or after a grace of twice the hedge
 * threshold (at least as long again as that answer took), and no hedge follows it: any node on one copy's path can
 * answer a get empty, which nothing can tell from the truth, and another copy that finds a value shows it (issue 39;
 * docs/security.md). So a fake empty answer wins a race of g copies only when every copy met a liar or the honest
 * copies were slower than the grace, and a key with no value costs the slower copies' answers (at most the grace), not
 * the fastest's. Only races won by a value teach the threshold. When every copy failed, the last failure is the
 * result. A copy refused as {@link Status#BAD_REQUEST} or {@link Status#TOO_LARGE}
 * ends the race at once with that refusal, hedge or no hedge: every copy carries the same request, and every gateway
 * would refuse it. Runs on the caller's event loop; the launcher and callbacks are called on it.
 */
public final class GetRace {

    /** Sends copy {@code copy} (0-based) of the get through its gateway; {@code answer} is called once with the reply. */
    @FunctionalInterface
    public interface Launcher {
        void launch(int copy, Consumer<Message> answer);
    }

    /**
     * How the race ended.
     *
     * @param reply        the winning answer, or the last failure
     * @param winner       the copy that won, -1 if none did
     * @param copiesSent   copies launched, hedges included
     * @param hedged       whether a hedge copy was sent
     * @param latencyNanos from the start of the race to its result
     */
    public record Result(Message reply, int winner, int copiesSent, boolean hedged, long latencyNanos) {
    }

    private final Scheduler scheduler;
    private final Clock clock;
    private final HedgeThreshold threshold;
    private final long[] hedgeWaits;
    private final Predicate<Message> good;
    private final Launcher launcher;
    private final Consumer<Result> done;
    private long startedNanos;
    private int sent;
    // Copies that failed, or answered with no value.
    private int failed;
    private int hedges;
    // The first good answer with no value, and its copy: the result unless another copy finds one within the grace.
    private Message empty;
    private int emptyCopy = -1;
    private Message lastFailure;
    // While the first copies go out: an answer given at once is recorded, and judged once they all went.
    private boolean launching;
    private Cancellable graceTimer;
    private boolean finished;
    private Cancellable hedgeTimer;

    private GetRace(Scheduler scheduler, Clock clock, HedgeThreshold threshold, long[] hedgeWaits,
                    Predicate<Message> good, Launcher launcher, Consumer<Result> done) {
        this.scheduler = scheduler;
        this.clock = clock;
        this.threshold = threshold;
        this.hedgeWaits = hedgeWaits;
        this.good = good;
        this.launcher = launcher;
        this.done = done;
    }

    /**
     * Starts a race.
     *
     * @param threshold when to hedge, and where finished gets' latencies are recorded; required when
     *                  {@code options.hedge()}, may be null otherwise
     * @param good      which answers win (a get reply with status OK, typically)
     */
    public static void start(Scheduler scheduler, Clock clock, GetOptions options, HedgeThreshold threshold,
                             Predicate<Message> good, Launcher launcher, Consumer<Result> done) {
        if (options.hedge()) {
            Objects.requireNonNull(threshold, "a hedged race needs a threshold");
        }
        start(scheduler, clock, options, threshold,
                options.hedge() ? new long[] {threshold.thresholdNanos()} : new long[0], good, launcher, done);
    }

    /**
     * As {@link #start(Scheduler, Clock, GetOptions, HedgeThreshold, Predicate, Launcher, Consumer)}, with the
     * hedge copies sent after {@code hedgeWaitsNanos} instead of {@code threshold}'s current value: hedge copy i goes
     * {@code hedgeWaitsNanos[i]} after the copy before it, if no good answer came by then. A caller that knows what
     * its copies should take (a one-hop get's replicas, see {@link OneHopRouter#hedgeWaitsNanos}) hedges sooner.
     * Finished gets' latencies are still recorded in {@code threshold}.
     *
     * @param hedgeWaitsNanos empty unless {@code options.hedge()}; at least one wait if it is
     */
    public static void start(Scheduler scheduler, Clock clock, GetOptions options, HedgeThreshold threshold,
                             long[] hedgeWaitsNanos, Predicate<Message> good, Launcher launcher,
                             Consumer<Result> done) {
        if (options.hedge()) {
            Objects.requireNonNull(threshold, "a hedged race needs a threshold");
        }
        if (options.hedge() != (hedgeWaitsNanos.length > 0)) {
            throw new IllegalArgumentException("a hedged race needs hedge waits and only it: hedge "
                    + options.hedge() + ", " + hedgeWaitsNanos.length + " waits");
        }
        GetRace race = new GetRace(scheduler, clock, threshold, hedgeWaitsNanos.clone(), Objects.requireNonNull(good),
                Objects.requireNonNull(launcher), Objects.requireNonNull(done));
        race.startedNanos = clock.nanoTime();
        race.launching = true;
        for (int i = 0; i < options.gateways() && !race.finished; i++) {
            race.launch();
        }
        race.launching = false;
        race.settleIfAllAnswered();
        race.armHedge();
    }

    private void armHedge() {
        if (hedgeTimer != null) {
            // The hedge it was for went out already: on time, or early because every copy failed (perhaps at once,
            // from inside the launch loop).
            hedgeTimer.cancel();
        }
        if (!finished && hedges < hedgeWaits.length && empty == null) {
            hedgeTimer = scheduler.schedule(Math.max(0, hedgeWaits[hedges]), this::hedge);
        }
    }

    private void launch() {
        int copy = sent++;
        boolean[] answered = {false};
        launcher.launch(copy, m -> {
            if (!answered[0]) {
                answered[0] = true;
                onAnswer(copy, m);
            }
        });
    }

    private void hedge() {
        if (!finished && hedges < hedgeWaits.length) {
            hedges++;
            launch();
            armHedge();
        }
    }

    private void onAnswer(int copy, Message m) {
        if (finished) {
            return;
        }
        boolean isGood = good.test(m);
        if (isGood && !holdsNoValue(m)) {
            finish(m, copy);
            return;
        }
        if (refusesTheRequest(m)) {
            finish(m, -1);
            return;
        }
        if (isGood && empty == null) {
            empty = m;
            emptyCopy = copy;
            waitForAValue();
        } else if (!isGood) {
            lastFailure = m;
        }
        failed++;
        settleIfAllAnswered();
    }

    /** Every copy sent has answered with no value (and none is still going out): the race ends or hedges. */
    private void settleIfAllAnswered() {
        if (finished || launching || failed < sent) {
            return;
        }
        if (empty != null) {
            finish(empty, emptyCopy);
            return;
        }
        if (hedges < hedgeWaits.length) {
            // Every copy so far failed: the next hedge is late already (hedge() re-arms the timer).
            hedge();
            return;
        }
        finish(lastFailure, -1);
    }

    /**
     * An empty answer came: no hedge follows it, and the copies still out have twice the hedge threshold (at least as
     * long again as the empty answer took) to find a value. Without a threshold they have until they answer.
     */
    private void waitForAValue() {
        if (hedgeTimer != null) {
            hedgeTimer.cancel();
        }
        if (threshold != null) {
            long grace = Math.max(2 * threshold.thresholdNanos(), clock.nanoTime() - startedNanos);
            graceTimer = scheduler.schedule(grace, () -> {
                if (!finished) {
                    finish(empty, emptyCopy);
                }
            });
        }
    }

    private static boolean holdsNoValue(Message m) {
        return m instanceof GetReply g && g.values().isEmpty();
    }

    /** An answer about the request itself, which no other copy, gateway or hedge can change. */
    private static boolean refusesTheRequest(Message m) {
        Status s = m instanceof ErrorReply e ? e.status() : m instanceof GetReply g ? g.status() : null;
        return s == Status.BAD_REQUEST || s == Status.TOO_LARGE;
    }

    private void finish(Message reply, int winner) {
        finished = true;
        if (hedgeTimer != null) {
            hedgeTimer.cancel();
        }
        if (graceTimer != null) {
            graceTimer.cancel();
        }
        long latency = clock.nanoTime() - startedNanos;
        // A miss waited for the slower copies: its latency says nothing of when a value comes.
        if (winner >= 0 && threshold != null && !holdsNoValue(reply)) {
            threshold.record(latency);
        }
        done.accept(new Result(reply, winner, sent, hedges > 0, latency));
    }
}
