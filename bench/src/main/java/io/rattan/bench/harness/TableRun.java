package io.rattan.bench.harness;

import io.rattan.api.GetOptions;
import io.rattan.api.Id;
import io.rattan.api.RoutingMode;
import io.rattan.core.msg.ClientMessages.ClientGet;
import io.rattan.core.msg.Message;
import io.rattan.core.net.Contact;
import io.rattan.core.slow.SlowPeriod;
import io.rattan.sim.experiment.GetLog;
import io.rattan.sim.experiment.OneHopClient;
import io.rattan.sim.experiment.OpenDhtTable;
import io.rattan.sim.experiment.RoundTally;
import io.rattan.sim.experiment.StoredValues;
import io.rattan.sim.experiment.TableDraws;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiPredicate;
import java.util.function.Supplier;

/**
 * One {@code bench table} run against a running cluster, in the simulator's order of phases and draws from the
 * seed's one stream: the values put ({@link StoredValues}), the one-hop clients warmed up when a mode is one-hop,
 * then the rounds ({@link TableRounds}); waits until every round is decided and every copy still out has answered
 * or been given up, and returns the simulator's rows.
 *
 * @param trace           the slow periods the nodes replay, counted from {@code traceZeroNanos} (a
 *                        {@code System.nanoTime()}), for the oracle; empty without a trace
 * @param getPhaseAtNanos where in the trace's time the rounds start (the simulator's get phase), the nodes re-armed
 *                        for it just before the first round; negative to keep the trace counting from
 *                        {@code traceZeroNanos}
 */
record TableRun(TableCluster cluster, List<OpenDhtTable.Mode> modes, long seed, int gets, int values,
                long getPhaseNanos, long requestTimeoutNanos, long settleNanos, List<SlowPeriod> trace,
                long traceZeroNanos, long getPhaseAtNanos, PrintWriter log) {

    private static final long SECOND = 1_000_000_000L;

    /**
     * The rows, each mode's first failed answer (null where none failed), by mode index, and each mode's p99 over
     * the rounds whose own gateway was not slow when they started, and how many rounds those were; and every get.
     */
    record Result(List<OpenDhtTable.Row> rows, List<String> firstFailures, List<Double> healthyGatewayP99Ms,
                  long healthyRounds, GetLog gets) {
    }

    Result run() throws IOException, InterruptedException {
        int n = cluster.size();
        // The simulator's clients give up a second after the request timeout.
        long clientTimeout = requestTimeoutNanos + SECOND;
        try (GatewayLinks links = new GatewayLinks(cluster.gateways())) {
            links.connectAll(5_000);
            SplittableRandom random = new SplittableRandom(seed);
            long putStart = System.nanoTime();
            StoredValues stored = StoredValues.put(random, seed, n, values,
                    (gateway, put) -> await(links, gateway, put, clientTimeout));
            if (stored.extraAttempts() != null) {
                log.println("  " + stored.extraAttempts());
            }
            log.printf(Locale.ROOT, "  %d values put in %.1f s; %.0f s for the tables to settle%n", values,
                    (System.nanoTime() - putStart) / 1e9, settleNanos / 1e9);
            TimeUnit.NANOSECONDS.sleep(settleNanos);
            RoundTally tally = new RoundTally(modes);
            TableCopies copies = new TableCopies(links, tally, cluster.contacts(), cluster.wan(), clientTimeout);
            Map<Integer, OneHopClient> oneHop = new HashMap<>();
            if (modes.stream().anyMatch(OpenDhtTable.Mode::oneHop)) {
                warmUp(links, copies, oneHop, stored.keys(), TableDraws.warmUpStarts(random, n));
            }
            List<TableDraws.Round> rounds = TableDraws.rounds(random, gets, getPhaseNanos, n,
                    TableDraws.nodesPerRound(modes), stored.keys().size(), modes.size());
            long traceZero = getPhaseAtNanos >= 0 && !trace.isEmpty() ? rearmForRounds() : traceZeroNanos;
            TableRounds play = new TableRounds(links, copies, tally, modes, cluster, stored.keys(), stored.values(),
                    oneHop, requestTimeoutNanos, slowAt(traceZero));
            long phaseStart = System.nanoTime();
            onLoop(links, () -> {
                play.scheduleAll(rounds, phaseStart);
                return null;
            });
            awaitRounds(links, tally, phaseStart);
            return onLoop(links, () -> new Result(tally.rows(gets), tally.firstFailures(),
                    tally.healthyGatewayP99Ms(), tally.healthyRounds(), tally.gets()));
        }
    }

    /**
     * Re-arms every node's trace so that the rounds, starting now, meet it at {@code getPhaseAtNanos}, where the
     * simulator's rounds met it; returns the trace's new zero as a {@code System.nanoTime()}.
     */
    private long rearmForRounds() throws IOException {
        long zeroNanos = System.nanoTime() - getPhaseAtNanos;
        SlowTraceArm.arm(cluster.http(), System.currentTimeMillis() - getPhaseAtNanos / 1_000_000);
        log.printf(Locale.ROOT, "  slow trace re-armed: the rounds start at %.3f ms of it%n", getPhaseAtNanos / 1e6);
        return zeroNanos;
    }

    /** Whether node i is in one of its slow periods at a {@code System.nanoTime()}, the trace counted from zero. */
    private BiPredicate<Integer, Long> slowAt(long traceZero) {
        return (node, nanoTime) -> {
            long t = nanoTime - traceZero;
            for (SlowPeriod p : trace) {
                if (p.node() == node && p.covers(t)) {
                    return true;
                }
            }
            return false;
        };
    }

    /**
     * Each host's one-hop client makes one-hop gets of random stored keys, one after another, until its image has
     * converged, as the simulator's {@code OneHopWarmUp}; all hosts at once rather than spread over a minute, since
     * the warm-up is not measured. Charged to no mode.
     */
    private void warmUp(GatewayLinks links, TableCopies copies, Map<Integer, OneHopClient> oneHop, List<Id> keys,
                        List<TableDraws.WarmUpStart> starts) throws InterruptedException {
        int[] left = {starts.size()};
        long[] made = {0};
        onLoop(links, () -> {
            for (int h = 0; h < starts.size(); h++) {
                OneHopClient client = oneHop.computeIfAbsent(h, OneHopClient::new);
                new WarmUp(copies, client, cluster.contacts().get(h), cluster.replicas(), keys,
                        new SplittableRandom(starts.get(h).seed()), made, left).next(0, 0);
            }
            return null;
        });
        while (onLoop(links, () -> left[0]) > 0) {
            Thread.sleep(50);
        }
        double image = onLoop(links, () -> oneHop.values().stream().mapToInt(c -> c.image().size()).average()
                .orElse(0));
        log.printf(Locale.ROOT, "  one-hop clients warmed up: %.0f gets each on average; images hold %.0f nodes%n",
                (double) made[0] / starts.size(), image);
    }

    /** One host's warm-up, confined to the loop. */
    private record WarmUp(TableCopies copies, OneHopClient client, Contact own, int replicas, List<Id> keys,
                          SplittableRandom random, long[] made, int[] left) {
        void next(int gets, int still) {
            if (still == OneHopClient.WARM_UP_STILL_GETS || gets == OneHopClient.WARM_UP_MAX_GETS) {
                left[0]--;
                return;
            }
            made[0]++;
            Id key = keys.get(random.nextInt(keys.size()));
            List<Contact> targets = client.targets(key, replicas, own);
            int known = client.image().size();
            copies.direct(TableCopies.UNCHARGED, client, targets, 0,
                    ClientGet.of(key, GetOptions.of(RoutingMode.DELAY_AWARE)).askingHolders(),
                    m -> next(gets + 1, !OpenDhtTable.isOk(m) ? still : client.image().size() > known ? 0
                            : still + 1));
        }
    }

    private void awaitRounds(GatewayLinks links, RoundTally tally, long phaseStart) throws InterruptedException {
        long deadline = phaseStart + getPhaseNanos + 600 * SECOND;
        long nextReport = System.nanoTime() + 10 * SECOND;
        while (onLoop(links, () -> tally.roundsDone() < gets || links.outstanding() > 0
                || tally.oracleCount() < gets)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the rounds did not finish within 10 minutes after the get phase");
            }
            if (System.nanoTime() > nextReport) {
                nextReport += 10 * SECOND;
                int done = onLoop(links, tally::roundsDone);
                log.printf(Locale.ROOT, "  %d of %d rounds done, %.0f s into the get phase%n", done, gets,
                        (System.nanoTime() - phaseStart) / 1e9);
            }
            Thread.sleep(50);
        }
    }

    private static Message await(GatewayLinks links, int node, Message request, long giveUpNanos)
            throws InterruptedException {
        try {
            return links.request(node, request, giveUpNanos).get();
        } catch (ExecutionException e) {
            throw new IllegalStateException("a put's answer failed", e.getCause());
        }
    }

    private static <T> T onLoop(GatewayLinks links, Supplier<T> task) throws InterruptedException {
        try {
            return links.loop().submit(task::get).get(1, TimeUnit.MINUTES);
        } catch (ExecutionException e) {
            throw new IllegalStateException("the table's loop failed", e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("the table's loop did not answer within a minute", e);
        }
    }
}
