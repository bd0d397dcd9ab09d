package io.rattan.sim.faults;

import io.rattan.core.msg.Messages.GetReply;
import io.rattan.core.util.Bytes;
import io.rattan.core.virtual.VirtualWorld;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Rule 1: a get that starts after a put's acknowledgement and returns a whole answer contains the value, unless a
 * remove of it had started, it is within S of its expiry, or disk faults destroyed every copy. Misses during a
 * partition, in a heal's first moment ({@link Checker#HEAL_MOMENT_NANOS}) and racing the put's copies
 * ({@link Checker#IN_FLIGHT_NANOS}) are counted, not asserted; a value a clock fault touched is counted apart.
 */
final class AckedPutReadableCheck {

    private final VirtualWorld world;
    private final PutLedger puts;
    private final StoreOracle stores;
    private final FaultInjector.PartitionView partitions;
    private final GetDiagnosis diagnosis;
    private final CheckerTally tally;

    AckedPutReadableCheck(VirtualWorld world, PutLedger puts, StoreOracle stores,
                          FaultInjector.PartitionView partitions, GetDiagnosis diagnosis, CheckerTally tally) {
        this.world = world;
        this.puts = puts;
        this.stores = stores;
        this.partitions = partitions;
        this.diagnosis = diagnosis;
        this.tally = tally;
    }

    /** Get {@code g} was answered with every value it holds ({@code returned}, by hash) in {@code reply}. */
    void check(Checker.GetRecord g, GetReply reply, Set<Bytes> returned) {
        long end = world.scheduler().nanoTime();
        GetDiagnosis.Served answerer = null;
        boolean looked = false;
        for (PutRecord p : puts.puts(g.key())) {
            boolean mustBeThere = p.acked() && p.ackNanos < g.startNanos() && p.removeStartNanos > end
                    && !p.lostToDiskFaults && p.startNanos + p.ttlSeconds * 1_000_000_000L - Checker.S_NANOS > end;
            if (!mustBeThere || returned.contains(p.hash)) {
                continue;
            }
            if (partitions.partitionedDuring(g.startNanos(), end)) {
                tally.countMissDuringPartition();
                continue;
            }
            if (partitions.healedWithin(Checker.HEAL_MOMENT_NANOS, g.startNanos())) {
                tally.countMissAtHeal();
                continue;
            }
            if (!looked) {
                answerer = diagnosis.answerer(reply, g.gateway(), g.key());
                looked = true;
            }
            if (copyInFlight(g, p, answerer)) {
                tally.countMissInFlight();
                continue;
            }
            missing(g, p, answerer);
        }
    }

    /** {@code p} is missing from {@code g}'s answer with no exemption: a violation, diagnosed unless clock-tainted. */
    private void missing(Checker.GetRecord g, PutRecord p, GetDiagnosis.Served answerer) {
        boolean clock = p.clockTainted || p.stampedEarly;
        String why = "";
        if (!clock) {
            why = "; " + diagnosis.classify(p.hash, p.key, p.ackNanos, p.holdersAtAck, p.lostAt, g.startNanos(),
                    answerer, stores.holders(p, true));
        }
        tally.violation(clock ? Rule.ACKED_PUT_READABLE_CLOCK : Rule.ACKED_PUT_READABLE, p.name() + " acknowledged at "
                + seconds(p.ackNanos) + " s missing from a get started at " + seconds(g.startNanos())
                + " s; copies on nodes " + stores.holders(p, false) + " (alive: " + stores.holders(p, true) + ")"
                + why);
    }

    /**
     * Whether get {@code g} raced the copies of put {@code p}: it started less than {@link Checker#IN_FLIGHT_NANOS}
     * after the acknowledgement, and its answerer, which did not hold the value then, had been sent a copy before it
     * answered.
     */
    private boolean copyInFlight(Checker.GetRecord g, PutRecord p, GetDiagnosis.Served answerer) {
        List<Integer> holdersAtStart = g.freshAtStart().get(p.hash);
        return holdersAtStart != null && answerer != null && !holdersAtStart.contains(answerer.node())
                && diagnosis.copySent(answerer.node(), p.hash, answerer.atNanos());
    }

    private static String seconds(long nanos) {
        return String.format(Locale.ROOT, "%.3f", nanos / 1e9);
    }
}
