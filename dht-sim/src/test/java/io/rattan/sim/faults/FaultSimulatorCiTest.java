package io.rattan.sim.faults;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The CI profile of the fault simulator (issues 16 and 34): 50 seeds × 20 nodes × 10 virtual minutes, even seeds with
 * a fault budget (safety and liveness), odd ones with faults until 2 minutes before the end (no liveness rule);
 * the nodes of seeds 2, 3, 6, 7, ... run with {@code --fsync}; two seeds at a time.
 *
 * <p>It asserts every rule on every seed: every fault kind fires; rule 1a (W copies at every acknowledgement, synced
 * ones under {@code --fsync}); rule 1b (under {@code --fsync}, no power loss takes an acknowledged put); rule 1 (every
 * acknowledged put in every whole answer after it, pages included, clock faults apart; a miss excused only by a
 * partition that cut the key's nodes, a heal's first second, or a copy in flight, each counted); rule 2 (no value
 * never put; no removed value once its tombstone reached every live holder, nor 60 s after a holder could have been
 * told); rule 3, clock faults included; rule 4 on every budget seed; rule 5 (a final quorum read of every key, page
 * by page, has every acknowledged live value); rule 6 (a minute after the faults stop, every live value is on its k
 * replicas); a replay gives the same trace and the same verdict; and each planted bug is caught by the rule meant to
 * catch it, on the same seeds (the first sixteen; the first four for issue 34's bugs), with clearly more violations
 * than the same seeds without it.
 * Every failing seed is printed with its replay command.
 */
class FaultSimulatorCiTest {

    private static final int SEEDS = 50;
    private static final int NODES = 20;
    private static final int MINUTES = 10;
    private static final int PLANTED_SEEDS = 16;
    /** The bugs of issue 34 each break their rule on every seed tried: four seeds each keep the test's cost down. */
    private static final int NEW_PLANTED_SEEDS = 4;
    /**
     * Repair-drops-last-wanted leaves a few values short a seed, and none on some: on the traces since remove proofs,
     * 0, 1, 2 and 1 on seeds 1-4, too close to the bound; 19 on seeds 1-8.
     */
    private static final int REPAIR_PLANTED_SEEDS = 8;
    private static ExecutorService pool;
    private static final List<FaultRunResult> baseline = new ArrayList<>();

    static FaultRunConfig config(long seed, PlantedBug bug) {
        return FaultRunConfig.ci(seed, NODES, MINUTES, bug, bug == PlantedBug.DURABLE_BEFORE_SYNC);
    }

    @BeforeAll
    static void runTheSeeds() throws Exception {
        FaultsCommand.quietNodeLogs();
        pool = Executors.newFixedThreadPool(2);
        baseline.addAll(runAll(PlantedBug.NONE, SEEDS));
        System.out.println("fault simulator CI profile: " + SEEDS + " seeds x " + NODES + " nodes x " + MINUTES
                + " virtual minutes; findings in today's code (reported, not asserted):");
        for (FaultRunResult r : baseline) {
            System.out.println("  " + r.summaryLine());
            if (r.failed()) {
                System.out.println("    replay: " + r.config().replayCommand());
            }
        }
    }

    @AfterAll
    static void stop() {
        pool.shutdownNow();
    }

    private static List<FaultRunResult> runAll(PlantedBug bug, int seeds) throws Exception {
        List<Future<FaultRunResult>> futures = new ArrayList<>();
        for (long seed = 1; seed <= seeds; seed++) {
            FaultRunConfig c = config(seed, bug);
            futures.add(pool.submit(() -> FaultRun.run(c)));
        }
        List<FaultRunResult> out = new ArrayList<>();
        for (Future<FaultRunResult> f : futures) {
            out.add(f.get());
        }
        return out;
    }

    @Test
    void everyFaultKindFires() {
        EnumMap<FaultKind, Integer> fired = new EnumMap<>(FaultKind.class);
        for (FaultRunResult r : baseline) {
            r.fired().forEach((k, n) -> fired.merge(k, n, Integer::sum));
        }
        System.out.println("faults fired over the CI seeds: " + fired);
        for (FaultKind k : FaultKind.values()) {
            assertThat(fired.getOrDefault(k, 0)).as("times %s fired", k).isPositive();
        }
    }

    @Test
    void noGetReturnsAValueNeverPutOrOneWhoseRemoveHadReachedItsReplicas() {
        for (FaultRunResult r : baseline) {
            assertThat(r.count(Rule.NEVER_PUT)).as(r.summaryLine()).isZero();
            assertThat(r.count(Rule.REMOVED_RETURNED)).as(r.summaryLine()).isZero();
        }
    }

    @Test
    void everyAcknowledgedPutHadWCopies() {
        for (FaultRunResult r : baseline) {
            assertThat(r.count(Rule.W_COPIES_AT_ACK)).as(r.summaryLine()).isZero();
        }
    }

    /**
     * Rule 4: once the faults stop and 30 s have passed, every operation of a budget seed succeeds. Before lost
     * neighbours were pinged again, 14 of the 25 budget seeds broke it (975 operations): partitions had left the
     * overlay in several rings that never merged (docs/testing.md).
     */
    @Test
    void afterTheFaultsStopEveryOperationSucceeds() {
        for (FaultRunResult r : baseline) {
            if (r.config().profile() == Profile.BUDGET) {
                assertThat(r.count(Rule.LIVENESS)).as(r.summaryLine()).isZero();
            }
        }
    }

    /**
     * Rule 1 on every seed, since the checker judges a get in a heal's first second as one during the partition and a
     * get that raced the put's copies apart, and a read asks a late replica again (docs/testing.md, "Rule 1 asserted").
     * The bound it replaces went 710, 380, 420, 112, 124, 92, 90, 87, 56 as the get path and repair were fixed
     * (docs/testing.md, "Rule 1 traced" and after).
     */
    @Test
    void everyAcknowledgedPutIsInEveryGetAfterIt() {
        for (FaultRunResult r : baseline) {
            assertThat(r.count(Rule.ACKED_PUT_READABLE)).as(r.summaryLine()).isZero();
        }
    }

    /**
     * Rule 3 on every seed. Until the gateway set a put's expiry (protocol version 7) the root did, and a put that
     * reached its root twice, seconds apart, was stretched by that much: 16 values over these seeds were served 0.7 s
     * past expiry + S, every clock right (docs/testing.md, "A put's expiry set once, at its gateway").
     */
    @Test
    void valuesAreNotServedPastTheirExpiryEvenUnderClockFaults() {
        for (FaultRunResult r : baseline) {
            assertThat(r.count(Rule.SERVED_PAST_EXPIRY) + r.count(Rule.SERVED_PAST_EXPIRY_CLOCK))
                    .as("rule-3 violations, clock faults included, in %s", r.summaryLine()).isZero();
        }
    }

    /**
     * Rule 1b: on the seeds whose nodes run with {@code --fsync} (2, 3, 6, 7, ...), no power loss takes an
     * acknowledged put; the simulated disk then acknowledges a write only after its sync, so the fsync path runs.
     */
    @Test
    void withFsyncPowerLossLosesNothingAcknowledged() {
        long fsyncSeeds = baseline.stream().filter(r -> r.config().fsync()).count();
        assertThat(fsyncSeeds).as("CI seeds with --fsync").isEqualTo(SEEDS / 2);
        for (FaultRunResult r : baseline) {
            assertThat(r.count(Rule.LOST_UNDER_FSYNC)).as(r.summaryLine()).isZero();
        }
    }

    /** Rule 5: at the end of every seed, a quorum read of every key, every page, has every acknowledged live value. */
    @Test
    void theFinalReadReadsEveryKeyWhole() {
        for (FaultRunResult r : baseline) {
            assertThat(r.count(Rule.FINAL_READ)).as(r.summaryLine()).isZero();
            assertThat(r.ends().keysRead()).as("keys read to their last page in %s", r.summaryLine()).isEqualTo(30);
            assertThat(r.ends().valuesChecked()).as(r.summaryLine()).isPositive();
        }
    }

    /** Rule 6: a minute after the faults stop, every live value is on all k of its key's replicas. */
    @Test
    void copiesReturnToKAfterTheFaults() {
        for (FaultRunResult r : baseline) {
            assertThat(r.count(Rule.COPIES_NOT_BACK)).as(r.summaryLine()).isZero();
            assertThat(r.ends().copiesChecked()).as(r.summaryLine()).isPositive();
        }
    }

    @Test
    void withoutFaultsTheCheckerReportsNothing() throws Exception {
        List<Future<FaultRunResult>> runs = new ArrayList<>();
        for (long seed = 1; seed <= 4; seed++) {
            FaultRunConfig c = new FaultRunConfig(seed, NODES, MINUTES, Profile.NONE, PlantedBug.NONE);
            runs.add(pool.submit(() -> FaultRun.run(c)));
        }
        for (Future<FaultRunResult> f : runs) {
            FaultRunResult r = f.get();
            assertThat(r.fired().values()).as("faults fired in %s", r.summaryLine()).allMatch(n -> n == 0);
            for (Rule rule : Rule.values()) {
                assertThat(r.count(rule)).as("%s in %s", rule, r.summaryLine()).isZero();
            }
        }
    }

    /**
     * The trace docs/testing.md gives for seed 46, computed in another JVM on another day: the same seed replays the
     * same run across processes, not only within this one.
     */
    @Test
    void seed46ReplaysTheDocumentedTrace() {
        FaultRunResult r = baseline.get(45);
        assertThat(r.config().seed()).isEqualTo(46);
        assertThat(r.trace()).isEqualTo("4d0b3856a9182e38/342243");
    }

    @Test
    void aReplayIsIdentical() {
        FaultRunResult first = baseline.stream().filter(FaultRunResult::failed).findFirst().orElse(baseline.get(0));
        FaultRunResult again = FaultRun.run(first.config());
        assertThat(again.trace()).isEqualTo(first.trace());
        assertThat(again.violations()).isEqualTo(first.violations());
        assertThat(again.fired()).isEqualTo(first.fired());
    }

    /**
     * Each planted bug, on the first sixteen seeds (issue 16's three) or the first four (issue 34's five; eight for
     * repair-drops-last-wanted); issue 36's, which shows in registers only, in RegisterCheckTest; issue 37's, in
     * watches only, in WatchCheckTest; issue 39's, with liars only, in LiarsFaultTest.
     */
    @ParameterizedTest
    @EnumSource(value = PlantedBug.class, names = {"NONE", "CAS_CONDITION_IGNORED", "WATCH_NEVER_READS_AGAIN",
            "RAW_SECRETS", "REPAIR_SCANS_UNBOUNDED", "PUT_ACKS_UNATTRIBUTED",
            "REMOVE_ACKS_UNATTRIBUTED", "BINDINGS_FIRST_COME", "ORIGINS_UNCHECKED",
            "ORIGINS_UNMETERED", "IDS_PER_HOST_UNBOUNDED", "CLOCK_THREE_HOSTS", "GET_ANSWERS_UNCHECKED"},
            mode = EnumSource.Mode.EXCLUDE)
    void eachPlantedBugIsCaughtByItsRule(PlantedBug bug) throws Exception {
        boolean issue16 = EnumSet.of(PlantedBug.ACK_BELOW_W, PlantedBug.TOMBSTONE_RULE_OFF,
                PlantedBug.EXTRA_SECOND_ON_COPY).contains(bug);
        assertCaught(bug, issue16 ? PLANTED_SEEDS
                : bug == PlantedBug.REPAIR_DROPS_LAST_WANTED ? REPAIR_PLANTED_SEEDS : NEW_PLANTED_SEEDS);
    }

    private static void assertCaught(PlantedBug bug, int seeds) throws Exception {
        Rule rule = bug.caughtBy();
        List<FaultRunResult> planted = runAll(bug, seeds);
        long withBug = 0;
        long without = 0;
        int seedsCatching = 0;
        for (int i = 0; i < seeds; i++) {
            int b = planted.get(i).count(rule);
            int a = baseline.get(i).count(rule);
            withBug += b;
            without += a;
            seedsCatching += b > a ? 1 : 0;
            System.out.println(bug + " seed " + (i + 1) + ": " + rule + " " + a + " without, " + b + " with; "
                    + planted.get(i).config().replayCommand());
        }
        assertThat(withBug).as("%s violations of %s with the bug planted vs %d without", bug, rule, without)
                .isGreaterThanOrEqualTo(2 * without + 5);
        assertThat(seedsCatching).as("seeds whose %s count rose with %s", rule, bug).isGreaterThanOrEqualTo(2);
    }
}
