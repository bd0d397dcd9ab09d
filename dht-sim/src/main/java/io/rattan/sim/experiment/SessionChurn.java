package io.rattan.sim.experiment;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.core.codec.MessageCodec;
import io.rattan.core.msg.ClientMessages.ClientGet;
import io.rattan.core.msg.ClientMessages.ClientPut;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.MessageType;
import io.rattan.core.msg.RequestMessages.GetReply;
import io.rattan.core.msg.RequestMessages.PutReply;
import io.rattan.core.node.NodeConfig;
import io.rattan.core.virtual.LatencyModel;
import io.rattan.core.virtual.VirtualWorld;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Consumer;

/**
 * Bamboo's churn experiment (Rhea et al., "Handling Churn in a DHT", USENIX 2004) in the simulator: every node's
 * session is exponential with a given median, a crashed node is replaced by a brand-new one (so the overlay keeps
 * its size), and values put before the churn starts are read continuously from random serving gateways. Phases run
 * one after another, each with its own median (6 min, then 1.4 min: Bamboo's hardest case).
 *
 * <p>Exponential sessions with replacement are a memoryless process: each live node fails at rate 1/mean, so the
 * overlay sees crashes (and as many joins) as a Poisson process of rate N/mean, which is what {@link ChurnPlan} and
 * {@link ChurnDriver} play; mean = median / ln 2.
 */
final class SessionChurn {

    private static final long SECOND = 1_000_000_000L;
    private static final long MINUTE = 60 * SECOND;

    /** One phase: sessions with this median, for this long. */
    record Phase(double medianMinutes, double minutes) {
    }

    /** What one phase measured. */
    record PhaseResult(Phase phase, long gets, long firstTryOk, long ok, long empty, long errors, int lost,
                       Churn.Counts churn, CopyWatch.Stats copies) {
        double firstTryRatio() {
            return gets == 0 ? 0 : (double) firstTryOk / gets;
        }

        double ratio() {
            return gets == 0 ? 0 : (double) ok / gets;
        }
    }

    /**
     * What the run measured: per phase, and the maintenance traffic (all node-to-node messages but those of
     * client requests) and the repair traffic (range digests, digests, replica pushes) per live node-second.
     */
    record Result(List<PhaseResult> phases, double maintenanceBytesPerNodeSecond,
                  double repairBytesPerNodeSecond, long events) {
    }

    private static final EnumSet<MessageType> CLIENT_TRAFFIC = EnumSet.of(MessageType.PUT_REQUEST,
            MessageType.GET_REQUEST, MessageType.REMOVE_REQUEST, MessageType.ITERATIVE_GET, MessageType.PUT_REPLY,
            MessageType.GET_REPLY, MessageType.REMOVE_REPLY, MessageType.ITERATIVE_GET_REPLY, MessageType.HOP_ACK,
            MessageType.CLIENT_PUT, MessageType.CLIENT_GET, MessageType.CLIENT_REMOVE, MessageType.ERROR_REPLY);
    private static final EnumSet<MessageType> REPAIR_TRAFFIC = EnumSet.of(MessageType.RANGE_DIGEST,
            MessageType.RANGE_DIGEST_REPLY, MessageType.DIGEST, MessageType.DIGEST_WANT, MessageType.STORE_REPLICAS,
            MessageType.STORE_ACK);

    private final int nodes;
    private final int values;
    private final double getsPerSecond;
    private final long seed;
    private final List<Phase> phases;
    private final Consumer<String> log;
    private final NodeConfig config;
    private long maintenanceBytes;
    private long repairBytes;

    /** @param replicas k; the real node's leaf set of 8 per side holds up to 9 */
    SessionChurn(int nodes, int replicas, int values, double getsPerSecond, long seed, List<Phase> phases,
                 Consumer<String> log) {
        this.config = NodeConfig.defaults().withReplicas(replicas, 2);
        this.nodes = nodes;
        this.values = values;
        this.getsPerSecond = getsPerSecond;
        this.seed = seed;
        this.phases = List.copyOf(phases);
        this.log = log;
    }

    Result run() {
        SplittableRandom random = new SplittableRandom(seed);
        // One-way delays of 10-90 ms: a wide-area spread without a matrix.
        LatencyModel latency = (from, to, r) -> 10_000_000L + (long) (r.nextDouble() * 80_000_000L);
        VirtualWorld world = new VirtualWorld(seed, config, latency);
        int failedJoins = world.addNodesInWaves(nodes, 64);
        world.runFor(30 * SECOND);
        log.accept(String.format("%d nodes joined (%d failed) at %.0f s of virtual time", nodes, failedJoins,
                world.scheduler().nanoTime() / 1e9));
        List<Id> keys = new ArrayList<>();
        List<Bytes> stored = new ArrayList<>();
        put(world, random, keys, stored);
        world.runFor(30 * SECOND);
        MessageCodec codec = new MessageCodec();
        world.network().observer((from, to, e) -> {
            MessageType t = e.body().type();
            if (!CLIENT_TRAFFIC.contains(t)) {
                int bytes = codec.encodedSize(e);
                maintenanceBytes += bytes;
                if (REPAIR_TRAFFIC.contains(t)) {
                    repairBytes += bytes;
                }
            }
        });
        List<Bytes> hashes = stored.stream().map(Bytes::sha256).toList();
        CopyWatch copies = new CopyWatch(world, keys, hashes, config.replicas());
        List<PhaseResult> results = new ArrayList<>();
        double nodeSeconds = 0;
        for (Phase p : phases) {
            long duration = (long) (p.minutes() * MINUTE);
            double meanMinutes = p.medianMinutes() / Math.log(2);
            double rate = nodes / meanMinutes;
            ChurnPlan plan = ChurnPlan.draw(new Churn(rate, 0, rate), duration, random.nextLong());
            ChurnDriver driver = new ChurnDriver(world, plan, ChurnDriver.minServing(config), random.split(),
                    i -> { });
            Reads reads = new Reads(world, keys, stored, random.split());
            driver.start();
            reads.schedule(duration);
            copies.schedule(duration);
            world.runFor(duration + 2 * config.requestTimeoutMillis() * 1_000_000L + SECOND);
            nodeSeconds += driver.aliveNodeNanos() / 1e9;
            PhaseResult r = new PhaseResult(p, reads.gets, reads.firstTryOk, reads.ok, reads.empty, reads.errors,
                    lost(world, keys, stored), driver.counts(), copies.take());
            results.add(r);
            log.accept(String.format("median session %.1f min, %.0f min: %d gets, %.3f%% first try, %.3f%% with one "
                            + "retry (failed tries: %d empty, %d errors); %d values on no live node; %d crashes, %d joins",
                    p.medianMinutes(), p.minutes(), r.gets(), 100 * r.firstTryRatio(), 100 * r.ratio(), r.empty(),
                    r.errors(), r.lost(), r.churn().crashes(), r.churn().joins()));
        }
        return new Result(results, maintenanceBytes / nodeSeconds, repairBytes / nodeSeconds,
                world.scheduler().executed());
    }

    /** Values that no live node holds: lost for good. */
    private static int lost(VirtualWorld world, List<Id> keys, List<Bytes> stored) {
        int lost = 0;
        List<Integer> live = world.liveIndexes();
        for (int k = 0; k < keys.size(); k++) {
            Bytes hash = stored.get(k).sha256();
            boolean held = false;
            for (int i : live) {
                if (world.store(i).read(keys.get(k), hash).isPresent()) {
                    held = true;
                    break;
                }
            }
            lost += held ? 0 : 1;
        }
        return lost;
    }

    /** Puts each value once through random gateways, retrying a failed put through another. */
    private void put(VirtualWorld world, SplittableRandom random, List<Id> keys, List<Bytes> stored) {
        for (int i = 0; i < values; i++) {
            Id key = Id.random(random);
            Bytes value = Bytes.utf8("value-" + i + "-" + random.nextLong());
            for (int attempt = 0; attempt < 5; attempt++) {
                Message put = world.request(random.nextInt(nodes), new ClientPut(key, value, 86_400, Bytes.EMPTY));
                if (put instanceof PutReply p && p.status() == Status.OK) {
                    keys.add(key);
                    stored.add(value);
                    break;
                }
            }
        }
        if (keys.size() < values) {
            log.accept((values - keys.size()) + " values could not be put in 5 attempts and are not read");
        }
    }

    /**
     * Gets as a Poisson process, each of a random stored key from a random serving gateway; a get succeeds when it
     * returns exactly the value put. A get that fails is tried once more through another gateway (a client does so
     * when its gateway dies under it); both counts are kept.
     */
    private final class Reads {
        final VirtualWorld world;
        final List<Id> keys;
        final List<Bytes> stored;
        final SplittableRandom random;
        long gets;
        long firstTryOk;
        long ok;
        long empty;
        long errors;

        Reads(VirtualWorld world, List<Id> keys, List<Bytes> stored, SplittableRandom random) {
            this.world = world;
            this.keys = keys;
            this.stored = stored;
            this.random = random;
        }

        void schedule(long duration) {
            double meanGap = SECOND / getsPerSecond;
            double t = 0;
            while (true) {
                t += -Math.log(1 - random.nextDouble()) * meanGap;
                if (t >= duration) {
                    return;
                }
                int k = random.nextInt(keys.size());
                world.scheduler().schedule((long) t, () -> {
                    gets++;
                    get(k, true);
                });
            }
        }

        private void get(int k, boolean first) {
            List<Integer> serving = world.servingIndexes();
            int gateway = serving.get(random.nextInt(serving.size()));
            world.node(gateway).handleClient(ClientGet.of(keys.get(k)), reply -> {
                boolean good = reply instanceof GetReply g && g.status() == Status.OK && g.values().size() == 1
                        && g.values().get(0).value().equals(stored.get(k));
                if (!good && reply instanceof GetReply g && g.status() == Status.OK && g.values().isEmpty()) {
                    empty++;
                } else if (!good) {
                    errors++;
                }
                if (good) {
                    ok++;
                    firstTryOk += first ? 1 : 0;
                } else if (first) {
                    world.scheduler().schedule(SECOND, () -> get(k, false));
                }
            });
        }
    }
}
