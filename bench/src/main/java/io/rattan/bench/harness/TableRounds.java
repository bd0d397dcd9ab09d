package io.rattan.bench.harness;

import io.rattan.api.Bytes;
import io.rattan.api.GetOptions;
import io.rattan.api.Id;
import io.rattan.core.client.GetRace;
import io.rattan.core.client.HedgeThreshold;
import io.rattan.core.msg.ClientMessages.ClientGet;
import io.rattan.core.msg.Message;
import io.rattan.core.net.Contact;
import io.rattan.sim.experiment.GetLog;
import io.rattan.sim.experiment.OneHopClient;
import io.rattan.sim.experiment.OpenDhtTable;
import io.rattan.sim.experiment.RoundTally;
import io.rattan.sim.experiment.TableDraws;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BiPredicate;
import java.util.function.Consumer;
import java.util.stream.IntStream;

/**
 * The get rounds of a {@code bench table} run, as the simulator's {@code RoundSchedule} and {@code ClientRound} play
 * them: each round at its drawn time, its client on its first node's host with that node as gateway (and the
 * round's other nodes as further gateways), every mode's get in the round's order, one after another, each a
 * {@link GetRace} of copies; a get succeeds only with exactly the value put, and a failed one counts at the request
 * timeout. Confined to the table's loop.
 */
final class TableRounds {

    private final GatewayLinks links;
    private final TableCopies copies;
    private final RoundTally tally;
    private final List<OpenDhtTable.Mode> modes;
    private final List<Contact> contacts;
    private final int replicas;
    private final List<Id> keys;
    private final List<Bytes> values;
    private final Map<Integer, OneHopClient> oneHop;
    private final HedgeThreshold[] thresholds;
    private final long requestTimeoutNanos;
    /** Whether node i is in a slow period at a wall-clock nanoTime, for the oracle; never when there is no trace. */
    private final BiPredicate<Integer, Long> slow;

    TableRounds(GatewayLinks links, TableCopies copies, RoundTally tally, List<OpenDhtTable.Mode> modes,
                TableCluster cluster, List<Id> keys, List<Bytes> values, Map<Integer, OneHopClient> oneHop,
                long requestTimeoutNanos, BiPredicate<Integer, Long> slow) {
        this.links = links;
        this.copies = copies;
        this.tally = tally;
        this.modes = modes;
        this.contacts = cluster.contacts();
        this.replicas = cluster.replicas();
        this.keys = keys;
        this.values = values;
        this.oneHop = oneHop;
        this.requestTimeoutNanos = requestTimeoutNanos;
        this.slow = slow;
        this.thresholds = new HedgeThreshold[modes.size()];
        for (int i = 0; i < modes.size(); i++) {
            if (modes.get(i).options().hedge()) {
                // One estimator per mode, shared by the run's clients, as in the simulator.
                thresholds[i] = HedgeThreshold.defaults();
            }
        }
    }

    /** Schedules every round at its drawn time after {@code phaseStartNanos} ({@code System.nanoTime()}). */
    void scheduleAll(List<TableDraws.Round> rounds, long phaseStartNanos) {
        for (TableDraws.Round r : rounds) {
            long delay = phaseStartNanos + r.atNanos() - System.nanoTime();
            links.loop().schedule(() -> startRound(r), Math.max(0, delay), TimeUnit.NANOSECONDS);
        }
    }

    private void startRound(TableDraws.Round r) {
        Id key = keys.get(r.key());
        oracle(r.nodes()[0], key);
        boolean healthy = !slow.test(r.nodes()[0], System.nanoTime());
        tally.roundStarted(healthy);
        OneHopClient client = oneHop.computeIfAbsent(r.nodes()[0], OneHopClient::new);
        next(r, client, key, values.get(r.key()), healthy, 0);
    }

    /**
     * The round's lower bound: the round trip from the client to the nearest of the key's replicas not slow when
     * the round starts (0 when that is the client's own node, as the simulator's client shares its host).
     */
    private void oracle(int own, Id key) {
        long now = System.nanoTime();
        List<Integer> live = IntStream.range(0, contacts.size()).boxed()
                .sorted(Comparator.comparing((Integer i) -> contacts.get(i).id().distanceTo(key)))
                .limit(replicas).filter(i -> !slow.test(i, now)).toList();
        if (live.contains(own) || live.isEmpty()) {
            tally.oracle(live.isEmpty() ? requestTimeoutNanos / 1000 : 1);
            return;
        }
        long[] best = {Long.MAX_VALUE};
        int[] left = {live.size()};
        for (int node : live) {
            copies.ping(own, node, rtt -> {
                best[0] = rtt < 0 ? best[0] : Math.min(best[0], rtt);
                if (--left[0] == 0) {
                    tally.oracle(best[0] == Long.MAX_VALUE ? requestTimeoutNanos / 1000 : best[0] / 1000);
                }
            });
        }
    }

    /** Runs the get of the {@code i}-th mode in the round's order, or ends the round after the last. */
    private void next(TableDraws.Round r, OneHopClient client, Id key, Bytes expected, boolean healthy, int i) {
        if (i == r.order().length) {
            tally.roundDone();
            return;
        }
        int mode = r.order()[i];
        OpenDhtTable.Mode m = modes.get(mode);
        GetOptions o = m.options();
        boolean direct = m.oneHop();
        // Each copy goes to its gateway alone; a one-hop client asks every answer for the key's holders.
        ClientGet get = new ClientGet(key, 0, Bytes.EMPTY, direct, o.oneCopy());
        List<Contact> targets = direct ? client.targets(key, replicas, contacts.get(r.nodes()[0])) : List.of();
        HedgeThreshold threshold = thresholds[mode];
        long[] hedgeWaits = threshold == null ? new long[0] : direct
                ? client.hedgeWaitsNanos(targets, threshold.thresholdNanos())
                : m.routedHedgeWaits(threshold.thresholdNanos());
        GetRace.start(links.scheduler(), links.clock(), o, threshold, hedgeWaits, OpenDhtTable::isOk,
                (copy, answer) -> sendCopy(mode, r.nodes(), client, direct, targets, get, copy, answer),
                result -> decided(r, client, key, expected, healthy, i, mode, result));
    }

    private void sendCopy(int mode, int[] gateways, OneHopClient client, boolean direct, List<Contact> targets,
                          ClientGet get, int copy, Consumer<Message> answer) {
        if (direct && copy < targets.size()) {
            copies.direct(mode, client, targets, copy, get, answer);
        } else if (direct) {
            // More copies than known targets: the next ones start at the round's other gateways, as a routed
            // race's do, and their answers teach the image.
            int via = gateways[Math.min(copy - targets.size() + 1, gateways.length - 1)];
            copies.send(mode, gateways[0], via, get, reply -> {
                client.routedAnswer(contacts.get(via), reply);
                answer.accept(reply);
            });
        } else {
            copies.send(mode, gateways[0], gateways[copy], get, answer);
        }
    }

    private void decided(TableDraws.Round r, OneHopClient client, Id key, Bytes expected, boolean healthy, int i,
                         int mode, GetRace.Result result) {
        tally.decided(new GetLog.Round(r.atNanos(), r.nodes()[0], r.key()), mode, result, expected, healthy,
                requestTimeoutNanos);
        // The next mode starts once this one is decided, as one client would run them.
        links.loop().execute(() -> next(r, client, key, expected, healthy, i + 1));
    }
}
