package io.rattan.sim.experiment;

import io.rattan.api.Id;
import io.rattan.core.client.HedgeThreshold;
import io.rattan.core.node.NodeConfig;
import io.rattan.core.virtual.VirtualWorld;
import io.rattan.sim.net.WideAreaLatencyModel;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The rounds of an {@link OpenDhtTable} run's measured phase and what they share: draws each round's time, nodes, key
 * and mode order, measures its oracle bound when it starts, and hands it to a {@link ClientRound}.
 */
final class RoundSchedule {

    final TableWorld w;
    final List<OpenDhtTable.Mode> modes;
    final RoundTally tally;
    final HedgeThreshold[] thresholds;
    final DirectCopies direct;
    final int replicas;
    final long requestTimeoutNanos;
    private final OpenDhtTable.Params params;
    private final NodeConfig config;
    private final StoredValues stored;
    /** Each client host's one-hop client, made when a round first puts a client there. */
    private final Map<Integer, OneHopClient> oneHop;

    RoundSchedule(TableWorld w, OpenDhtTable.Params params, NodeConfig config, List<OpenDhtTable.Mode> modes,
                  StoredValues stored, Map<Integer, OneHopClient> oneHop, DirectCopies direct) {
        this.w = w;
        this.params = params;
        this.config = config;
        this.modes = modes;
        this.stored = stored;
        this.oneHop = oneHop;
        this.direct = direct;
        this.replicas = config.replicas();
        this.requestTimeoutNanos = config.requestTimeoutMillis() * 1_000_000L;
        this.tally = new RoundTally(modes);
        this.thresholds = new HedgeThreshold[modes.size()];
        for (int i = 0; i < modes.size(); i++) {
            if (modes.get(i).options().hedge()) {
                // One estimator per mode, shared by the run's clients: each client here makes only a few gets,
                // so the shared one stands for a long-lived client's own.
                thresholds[i] = HedgeThreshold.defaults();
            }
        }
    }

    /** Draws every round's time, nodes, key and mode order from {@code random} now, and schedules the round. */
    void scheduleAll(long start, SplittableRandom random, SplittableRandom roundNodes) {
        VirtualWorld world = w.world();
        tally.getPhaseStarts(start);
        int m = modes.size();
        boolean churn = !params.churn().isOff();
        List<TableDraws.Round> drawn = TableDraws.rounds(random, params.gets(), params.getPhaseNanos(),
                params.nodes(), TableDraws.nodesPerRound(modes), stored.keys().size(), m);
        for (int round = 0; round < drawn.size(); round++) {
            TableDraws.Round r = drawn.get(round);
            long roundAt = start + r.atNanos();
            int firstCause = round * m + 1;
            world.scheduler().schedule(roundAt - world.scheduler().nanoTime(), () -> startRound(
                    churn ? servingNodes(world, roundNodes, r.nodes().length) : r.nodes(), r.key(), r.order(),
                    firstCause, roundAt, r.atNanos()));
        }
    }

    /** Measures the round's oracle bound, then runs its first mode's get. */
    private void startRound(int[] gateways, int k, int[] order, int firstCause, long atNanos, long offsetNanos) {
        Id key = stored.keys().get(k);
        long oracleMicros = Math.max(1, (long) (oracleMillis(w.world(), w.net(), gateways[0], key, atNanos)
                * 1000));
        boolean healthy = !w.net().isSlow(gateways[0], atNanos);
        tally.roundStarted(healthy);
        tally.oracle(oracleMicros);
        new ClientRound(this, oneHop.computeIfAbsent(gateways[0], OneHopClient::new), gateways, key,
                stored.values().get(k), order, firstCause, healthy, new GetLog.Round(offsetNanos, gateways[0], k))
                .next(0);
    }

    /** {@code n} distinct random nodes among those serving now; churn keeps far more than a round needs. */
    private static int[] servingNodes(VirtualWorld world, SplittableRandom random, int n) {
        List<Integer> serving = world.servingIndexes();
        if (serving.size() < n) {
            throw new IllegalStateException("a round needs " + n + " serving nodes, only " + serving.size() + " serve");
        }
        int[] picked = new int[n];
        for (int i = 0; i < n; i++) {
            picked[i] = serving.remove(random.nextInt(serving.size()));
        }
        return picked;
    }

    /**
     * RTT from the client's host to the nearest replica not slow at {@code atNanos}; the lower bound of a get. The
     * replicas are the key's closest live, joined nodes at that moment: under churn, where the values should be.
     */
    private double oracleMillis(VirtualWorld world, WideAreaLatencyModel net, int gateway, Id key, long atNanos) {
        List<Integer> live = world.liveIndexes();
        live.removeIf(i -> !world.node(i).isJoined());
        live.sort(Comparator.comparing((Integer i) -> world.contact(i).id().distanceTo(key)));
        double best = Double.MAX_VALUE;
        for (int r : live.subList(0, Math.min(config.replicas(), live.size()))) {
            if (!net.isSlow(r, atNanos)) {
                best = Math.min(best, r == gateway ? 0 : net.rttMillis(gateway, r));
            }
        }
        return best == Double.MAX_VALUE ? config.requestTimeoutMillis() : best;
    }
}
