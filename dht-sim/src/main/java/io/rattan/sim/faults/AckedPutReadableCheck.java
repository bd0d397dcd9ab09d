package io.rattan.sim.faults;

import io.rattan.api.Bytes;
import io.rattan.core.msg.RequestMessages.GetReply;
import io.rattan.core.virtual.VirtualWorld;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * Rule 1: a get that starts after a put's acknowledgement and returns a whole answer (all its pages) contains the
 * value, unless a remove of it had started, it is within S of its expiry, or disk faults destroyed every copy. A miss
 * is excused, and counted by reason, only by a partition that cut the nodes the get depended on (its gateway, the
 * key's replicas, the value's holders) while it ran or less than {@link Checker#HEAL_MOMENT_NANOS} before, or by a
 * copy in flight to the node that answered ({@link Checker#inFlightNanos()}); a value a clock fault touched is
 * counted apart.
 */
final class AckedPutReadableCheck {

    private final VirtualWorld world;
    private final PutLedger puts;
    private final StoreOracle stores;
    private final PartitionHistory partitions;
    private final GetDiagnosis diagnosis;
    private final CheckerTally tally;
    /** Liars that store no copy they are sent: a get one of them answers misses what it was never given. */
    private Set<Integer> storeNothing = Set.of();

    AckedPutReadableCheck(VirtualWorld world, PutLedger puts, StoreOracle stores,
                          PartitionHistory partitions, GetDiagnosis diagnosis, CheckerTally tally) {
        this.world = world;
        this.puts = puts;
        this.stores = stores;
        this.partitions = partitions;
        this.diagnosis = diagnosis;
        this.tally = tally;
    }

    void storeNothing(Set<Integer> liars) {
        storeNothing = liars;
    }

    /**
     * The acknowledged puts of {@code g}'s key that a whole answer to it must hold, judged now (its end): acknowledged
     * before it started, no remove started, not within S of their true expiry, not lost to disk faults.
     */
    List<PutRecord> mustBeThere(Checker.GetRecord g) {
        long end = world.scheduler().nanoTime();
        List<PutRecord> out = new ArrayList<>();
        for (PutRecord p : puts.puts(g.key())) {
            if (p.acked() && p.ackNanos < g.startNanos() && p.removeStartNanos > end && !p.lostToDiskFaults
                    && !p.ackedOnLiarsWord && p.earliestExpiryNanos() - Checker.S_NANOS > end) {
                out.add(p);
            }
        }
        return out;
    }

    /** Get {@code g} was answered with every value it holds ({@code returned}, by hash); {@code reply}: its last page. */
    void check(Checker.GetRecord g, GetReply reply, Set<Bytes> returned) {
        long end = world.scheduler().nanoTime();
        GetDiagnosis.Served last = null;
        boolean looked = false;
        for (PutRecord p : mustBeThere(g)) {
            if (returned.contains(p.hash)) {
                continue;
            }
            GetDiagnosis.Served answerer = pageAnswerer(g, p.hash);
            if (answerer == null) {
                if (!looked) {
                    last = diagnosis.answerer(reply, g.gateway(), g.key());
                    looked = true;
                }
                answerer = last;
            }
            Excuse excuse = partitions.excuse(dependedOn(g, p, answerer), g.startNanos(), end,
                    Checker.HEAL_MOMENT_NANOS);
            if (excuse == null && copyInFlight(g, p, answerer)) {
                excuse = Excuse.COPY_IN_FLIGHT;
            }
            if (excuse == null && answerer != null && storeNothing.contains(answerer.node())) {
                excuse = Excuse.LIAR_ANSWERED;
            }
            if (excuse != null) {
                tally.excused(excuse);
                continue;
            }
            missing(g, p, answerer);
        }
    }

    /**
     * The node that answered the page of {@code g} before its last whose range covers value {@code hash}, if one did and
     * was recorded; null for the last page's range.
     */
    private static GetDiagnosis.Served pageAnswerer(Checker.GetRecord g, Bytes hash) {
        for (Checker.PageAnswer page : g.pages()) {
            if (hash.compareTo(page.end()) <= 0) {
                return page.answerer();
            }
        }
        return null;
    }

    /**
     * The nodes get {@code g} depended on to return {@code p}: its gateway, the key's true replicas at its start and
     * now, the value's live holders at its acknowledgement and now, and the node that answered.
     */
    private Set<Integer> dependedOn(Checker.GetRecord g, PutRecord p, GetDiagnosis.Served answerer) {
        Set<Integer> group = new TreeSet<>(g.replicasAtStart());
        group.addAll(diagnosis.trueReplicas(g.key()));
        group.addAll(p.holdersAtAck);
        group.addAll(stores.holders(p, true));
        if (g.gateway() >= 0) {
            group.add(g.gateway());
        }
        if (answerer != null) {
            group.add(answerer.node());
        }
        return group;
    }

    /** {@code p} is missing from {@code g}'s answer with no exemption: a violation, diagnosed unless clock-tainted. */
    private void missing(Checker.GetRecord g, PutRecord p, GetDiagnosis.Served answerer) {
        boolean clock = p.clockTainted || p.stampedEarly;
        String why = "";
        if (!clock) {
            why = "; " + diagnosis.classify(p.hash, p.key, p.ackNanos, p.holdersAtAck, p.lostAt, g.startNanos(),
                    answerer, stores.holders(p, true));
        }
        tally.violation(clock ? Rule.ACKED_PUT_READABLE_CLOCK : Rule.ACKED_PUT_READABLE, p.key, g.gateway(), p.name() + " acknowledged at "
                + seconds(p.ackNanos) + " s missing from a get started at " + seconds(g.startNanos())
                + " s; copies on nodes " + stores.holders(p, false) + " (alive: " + stores.holders(p, true) + ")"
                + why);
    }

    /**
     * Whether get {@code g} raced the copies of put {@code p}: it started less than {@link Checker#inFlightNanos()}
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
