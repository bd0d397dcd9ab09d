package io.rattan.sim.faults;

import io.rattan.core.node.NodeConfig;
import io.rattan.core.node.NodeListener;
import io.rattan.core.virtual.LatencyModel;
import io.rattan.core.virtual.VirtualWorld;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * One seeded fault run: a world of unmodified nodes joins, then the workload runs while the injector breaks things,
 * and the checker judges every answer. Everything comes from the seed: the world's own random source (node ids,
 * latencies, the nodes' draws) is the seed's, and the fault plan and the workload each draw from their own split of
 * another stream, so a change to the fault plan does not shift what the nodes draw.
 */
public final class FaultRun {

    private static final long SECOND = 1_000_000_000L;
    /** Disks sync every second of virtual time (docs/testing.md). */
    static final long SYNC_INTERVAL_MILLIS = 1_000;
    /** With repair floods: each store task (a write, a read, a page of a scan) takes 2 ms, at most 1,024 wait. */
    private static final long STORE_TASK_NANOS = 2_000_000L;
    private static final int STORE_QUEUE_MAX = 1_024;
    /** Faults start this long after the workload. */
    private static final long FAULTS_AFTER_NANOS = 10 * SECOND;
    /** With a budget: after faults stop, operations started within this time may still fail. */
    static final long SETTLE_NANOS = 30 * SECOND;
    /** Without a budget, faults stop this long before the end (the copies rule and the final read follow). */
    static final long LAST_PHASE_NANOS = 120 * SECOND;
    /** The workload stops issuing this long before the end, so that its last operations are answered. */
    private static final long DRAIN_NANOS = 15 * SECOND;

    private FaultRun() {
    }

    /**
     * The node configuration of a fault run: production defaults (k = 4, W = 2) with the run's leaf set; with liars
     * that flood the peer port, each root takes from one origin what {@link PeerFlood#LIMITS} says; with
     * {@link PlantedBug#IDS_PER_HOST_UNBOUNDED}, no bound on the ids of one host.
     */
    static NodeConfig nodeConfig(FaultRunConfig c) {
        NodeConfig config = NodeConfig.defaults().withLeafSetHalf(c.leafSetHalf());
        if (c.bug() == PlantedBug.IDS_PER_HOST_UNBOUNDED) {
            config = config.withIdsPerIp(-1);
        }
        // A flood shows against limits a second of it passes; the defaults take a GiB from each origin.
        return c.liars().attacks().contains(Attack.PEER_FLOOD)
                ? config.toBuilder().origin(PeerFlood.LIMITS).build() : config;
    }

    /**
     * When the faults stop: with a budget after 60% of the run; without, {@link #LAST_PHASE_NANOS} (at most a fifth
     * of the run) before the end, so that the copies rule and the final read judge a world without faults; at once
     * without faults.
     */
    static long stopNanos(Profile profile, long start, long end) {
        return switch (profile) {
            case NONE -> start;
            case BUDGET -> start + (end - start) * 6 / 10;
            case NOBUDGET -> end - Math.min(LAST_PHASE_NANOS, (end - start) / 5);
        };
    }

    /**
     * Starts the register workload from {@code start} to {@code stop}, on its own random stream (split from another
     * source than the plan's, so that the other draws stay as they were); its histories.
     */
    private static RegisterHistories registers(FaultRunConfig c, VirtualWorld world, Workload workload,
                                               GetDiagnosis diagnosis, PartitionHistory partitions, long start,
                                               long stop) {
        RegisterHistories histories = new RegisterHistories(world, diagnosis, partitions);
        new RegisterWorkload(world, workload, histories, new SplittableRandom(c.seed() ^ 0xBB67AE8584CAA73BL))
                .start(start, stop);
        return histories;
    }

    private static void startIfWanted(HealMonitor heal) {
        if (heal != null) {
            heal.start();
        }
    }

    /** Starts the watches on their own random stream (split from another source, so the other draws stay put). */
    private static WatchSessions watches(FaultRunConfig c, VirtualWorld world, Workload workload) {
        WatchSessions watches = new WatchSessions(world, new SplittableRandom(c.seed() ^ 0x3C6EF372FE94F82BL));
        watches.start(workload.firstKeys(WatchSessions.WATCHED_KEYS));
        return watches;
    }

    /**
     * Readies the world for the run's liars before any node is added, and returns the order they are drawn in
     * ({@link Liars#drawOrder}, from {@code random}, their own stream): with {@link Attack#REPAIR_FLOOD}, stores with
     * a queue; with {@link Attack#SLOT_CAPTURE}, the liars and their host's further ids on one host.
     */
    private static List<Integer> readyForLiars(FaultRunConfig c, VirtualWorld world, SplittableRandom random) {
        if (c.liars().attacks().contains(Attack.REPAIR_FLOOD)) {
            // A flood costs a node only where its store work takes time that others wait for: a thread with a queue.
            world.queueStoreWork(STORE_TASK_NANOS, STORE_QUEUE_MAX);
        }
        List<Integer> drawOrder = Liars.drawOrder(c.nodes(), random);
        if (c.liars().attacks().contains(Attack.SLOT_CAPTURE)) {
            Set<Integer> onHost = SlotCapture.onOneHost(c.liars(), drawOrder);
            world.hosts(i -> SlotCapture.host(i, onHost));
        }
        return drawOrder;
    }

    /**
     * Installs the run's liars, the first of {@code drawOrder}, with {@code random}, their own stream (the other draws
     * stay put); null without any.
     */
    private static LiarNodes liars(FaultRunConfig c, VirtualWorld world, List<Integer> drawOrder,
                                   SplittableRandom random) {
        if (!c.liars().any()) {
            return null;
        }
        LiarNodes liars = new LiarNodes(world, c.liars(), drawOrder, random);
        world.network().interception(liars);
        return liars;
    }

    /**
     * Tells the checker's tally where the defences' stated limits lie: where an attacker's node (a liar, and with
     * {@code slot-capture} every node on their host) is one of a key's true k replicas, or a get's gateway.
     */
    private static void statedLimits(FaultRunConfig c, List<Integer> drawOrder, Checker checker,
                                     GetDiagnosis diagnosis) {
        Set<Integer> attackers = new HashSet<>(drawOrder.subList(0, c.liars().count(c.nodes())));
        if (c.liars().attacks().contains(Attack.SLOT_CAPTURE)) {
            attackers.addAll(SlotCapture.onOneHost(c.liars(), drawOrder));
        }
        checker.tally().attackerHolds((key, gateway) -> attackers.contains(gateway)
                || !Collections.disjoint(diagnosis.trueReplicas(key), attackers));
    }

    /** Counts gets of consistency one served by a replica into {@code reads}: all, unsettled, store fault. */
    private static NodeListener readsInto(long[] reads) {
        return new NodeListener() {
            @Override
            public void oneReplicaGetServed(boolean secondReplica, boolean storeFault) {
                reads[0]++;
                if (secondReplica) {
                    reads[storeFault ? 2 : 1]++;
                }
            }
        };
    }

    public static FaultRunResult run(FaultRunConfig c) {
        LatencyModel latency = (from, to, r) -> 1_000_000L + r.nextLong(19_000_000L);
        long[] reads = new long[3];
        NodeListener counting = readsInto(reads);
        VirtualWorld world = new VirtualWorld(c.seed(), nodeConfig(c), latency, counting);
        world.enableFaults(SYNC_INTERVAL_MILLIS, c.fsync(), c.bug().switches());
        SplittableRandom liarDraws = new SplittableRandom(c.seed() ^ 0xA54FF53A5F1D36F1L);
        List<Integer> drawOrder = readyForLiars(c, world, liarDraws);
        world.addNodes(c.nodes());
        SplittableRandom plan = new SplittableRandom(c.seed() ^ 0x6A09E667F3BCC909L);
        LinkFaultState links = new LinkFaultState(plan.split(), c.nodes());
        world.network().faults(links);

        long start = world.scheduler().nanoTime();
        long end = start + c.minutes() * 60 * SECOND;
        boolean budget = c.profile() != Profile.NOBUDGET;
        long stop = stopNanos(c.profile(), start, end);
        long livenessFrom = budget ? stop + SETTLE_NANOS : Long.MAX_VALUE;

        LiarNodes liars = liars(c, world, drawOrder, liarDraws);
        FaultInjector injector = new FaultInjector(world, links, plan.split(), stop);
        GetDiagnosis diagnosis = new GetDiagnosis(world);
        Checker checker = new Checker(world, injector::inForce, injector.partitions(), injector::restartedAt,
                livenessFrom, c.fsync(), diagnosis);
        injector.checker(checker);
        injector.diagnosis(diagnosis);
        Workload workload = new Workload(world, checker, plan.split(), c.seed(), c.bug() == PlantedBug.RAW_SECRETS);
        if (liars != null) {
            liars.checker(checker, workload.firstKeys(Integer.MAX_VALUE));
            statedLimits(c, drawOrder, checker, diagnosis);
        }
        workload.start(end - DRAIN_NANOS);
        RegisterHistories registers = c.registers() ? registers(c, world, workload, diagnosis, injector.partitions(),
                start, end - DRAIN_NANOS) : null;
        WatchSessions watches = c.watches() ? watches(c, world, workload) : null;
        if (c.profile() != Profile.NONE) {
            injector.start(start + FAULTS_AFTER_NANOS);
        }
        world.scheduler().schedule(end - DRAIN_NANOS - world.scheduler().nanoTime(), workload::finalRead);
        CopiesBackCheck copies = new CopiesBackCheck(world, checker, diagnosis, stop, end);
        copies.start();
        boolean timeline = "timeline".equals(System.getProperty("rattan.sim.heal"));
        HealMonitor heal = budget && c.profile() != Profile.NONE && HealMonitor.wanted()
                ? new HealMonitor(world, links::isPartitioned, timeline ? start + SECOND : stop, stop, end) : null;
        startIfWanted(heal);
        world.scheduler().runUntil(end);
        if (heal != null) {
            System.out.println(heal.summary(c.seed()) + (timeline ? "\n  timeline (s from the stop, wrong/rings):"
                    + heal.timeline() : ""));
        }

        // Judged before the checker's counts are read: rule 7 is among them.
        RegisterHistories.Summary judged = registers != null ? registers.judge(checker.tally())
                : RegisterHistories.Summary.NONE;
        FaultRunResult.Watches watched = watches == null ? FaultRunResult.Watches.NONE
                : new FaultRunResult.Watches(watches.judge(checker, end), watches.replaced());
        return new FaultRunResult(c, world.network().traceHash(), world.scheduler().executed(), injector.fired(),
                checker.counts(), checker.kept(), checker.counted(), new FaultRunResult.Ends(checker.finalKeys(),
                checker.finalValues(), copies.checked(), copies.lastShortMillis()), workload.ops(), world.escapedExceptions() + workload.gatewayExceptions()
                + (liars == null ? 0 : liars.failures()), world.writesRefused(),
                diagnosis.causes(), new FaultRunResult.SecondReads(reads[0], reads[1], reads[2]),
                judged, watched, LiarNodes.told(liars, checker.tally().withinLimits()));
    }
}
