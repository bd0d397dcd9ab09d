package io.rattan.sim.faults;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.RequestMessages.GetReply;
import io.rattan.core.msg.RequestMessages.PutReply;
import io.rattan.core.msg.RequestMessages.RemoveReply;
import io.rattan.core.msg.RequestMessages.ValueEntry;
import io.rattan.core.virtual.VirtualWorld;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.IntToLongFunction;
import java.util.function.Supplier;

/**
 * Records every client operation with its virtual start and end times and checks the rules of docs/testing.md as
 * each answer arrives. It may read every node's store directly (the world's), as an oracle: to count a put's copies
 * when it is acknowledged, to know whether a disk fault destroyed the last copy of a value, and whether a removed
 * value's tombstone has reached every live node that held it. Rules 1a, 1b, 2's never-put half, 4, 5 (the final read)
 * and 6 (copies back to k, sampled by {@link CopiesBackCheck}) are judged here; rules 1, 2's resurrection half and 3
 * by a check of their own. Single-threaded, on the world's thread.
 */
final class Checker {

    /**
     * S, the clock-error bound: a value may be served up to S after its true expiry by a node whose clock is within S
     * of the true time (copies travel with their remaining time, and a copy's transit adds to it).
     */
    static final long S_NANOS = 500_000_000L;
    static final long S_MILLIS = S_NANOS / 1_000_000L;
    /**
     * A heal's first moment: a get that starts this soon after a partition healed is judged as one during it. The
     * node that answers may not have heard from the other side yet: it pings a neighbour it declared dead half a
     * second after the death, and one among a read key's replicas at most a second apart (LostContacts), and no
     * single-replica read can return a copy no message has carried to it (docs/durability.md, "Quorum gets";
     * docs/testing.md, rule 1).
     */
    static final long HEAL_MOMENT_NANOS = 1_000_000_000L;

    /**
     * How long a removed value may still be returned after a live node that holds it could first have been told of
     * the remove (docs/testing.md, rule 2): two anti-entropy passes over a fault run's six leaf-set members (5 s a
     * member), as one lost digest or session costs a pass.
     */
    static final long TOMBSTONE_BOUND_NANOS = 60_000_000_000L;

    /**
     * A get in flight, over one page or several: its key, its start, which live nodes held each removed value live
     * then, which nodes the checker had seen holding its tombstone by then, which live nodes held each value
     * acknowledged less than {@link #inFlightNanos()} before, its gateway, the key's true replicas at its start, and
     * the values its pages returned so far (by hash).
     */
    record GetRecord(Id key, long startNanos, Map<Bytes, List<Integer>> liveAtStart,
                     Map<Bytes, Set<Integer>> toldAtStart, Map<Bytes, List<Integer>> freshAtStart, int gateway,
                     List<Integer> replicasAtStart, Set<Bytes> returned, List<PageAnswer> pages) {
    }

    /**
     * Who answered a page of a get before its last, which covers the value hashes up to {@code end} (after the
     * previous page's): a value missing from a paged get is judged against the node that answered its page
     * (seed 770 of issue 34's second long run: the first page came from a replica whose copy was in flight, the last
     * from one that held the value).
     */
    record PageAnswer(Bytes end, GetDiagnosis.Served answerer) {
    }

    private final VirtualWorld world;
    private final int writeQuorum;
    /**
     * How soon after a put's acknowledgement a get may still race its copies: the root acknowledges once W replicas
     * hold the put, and sends the others theirs at the same time, again at doubling intervals while unanswered, until
     * the request timeout (ReplicaCoordinator.Copy). A get that starts this soon after, answered by a replica whose
     * copy had been sent but had not arrived when the get started, missed a copy in flight, not a lost one
     * (docs/testing.md, rule 1). Until issue 34's long run it was 1 s, shorter than the resends (seed 1643: a copy
     * resent under 7.3% drops arrived 1.2 s after the acknowledgement).
     */
    private final long inFlightNanos;
    private final long livenessFromNanos;
    private final StoreOracle stores;
    private final PutLedger puts;
    private Set<Integer> storeNothing = Set.of();
    private Set<Integer> liars = Set.of();
    private final CheckerTally tally;
    private final AckedPutReadableCheck readable;
    private final RemovedValueCheck removed;
    private final ExpiryCheck expiry;
    private final GetDiagnosis diagnosis;
    private final boolean fsync;
    private int finalKeys;
    private long finalValues;

    /**
     * @param partitions  every partition so far, for rule 1's excuses and rule 2's bound
     * @param restartedAt when a node last started again after a crash, for rule 2's bound
     * @param fsync       the nodes run with {@code --fsync}: rules 1a and 1b count synced copies only
     */
    Checker(VirtualWorld world, Supplier<String> faultsInForce, PartitionHistory partitions,
            IntToLongFunction restartedAt, long livenessFromNanos, boolean fsync, GetDiagnosis diagnosis) {
        this.world = world;
        this.writeQuorum = world.config().writeQuorum();
        this.inFlightNanos = world.config().requestTimeoutMillis() * 1_000_000L;
        this.livenessFromNanos = livenessFromNanos;
        this.diagnosis = diagnosis;
        this.fsync = fsync;
        this.stores = new StoreOracle(world);
        this.puts = new PutLedger(stores);
        this.tally = new CheckerTally(world.scheduler(), faultsInForce);
        this.readable = new AckedPutReadableCheck(world, puts, stores, partitions, diagnosis, tally);
        this.removed = new RemovedValueCheck(world, stores, tally, partitions, restartedAt, diagnosis);
        this.expiry = new ExpiryCheck(world, stores, diagnosis, tally);
    }

    /** Where violations are counted: rules judged outside the checker (7, the registers) count there too. */
    CheckerTally tally() {
        return tally;
    }

    /** How long after its acknowledgement a put's copies may still be on their way ({@link #inFlightNanos}). */
    long inFlightNanos() {
        return inFlightNanos;
    }

    private long now() {
        return world.scheduler().nanoTime();
    }

    /** A put through node {@code gateway} (negative: none serving) started. */
    PutRecord putStarted(Id key, Bytes value, Bytes secret, Bytes sent, int ttlSeconds, int gateway) {
        PutRecord p = new PutRecord(key, value, secret, sent, ttlSeconds, now(), gateway);
        // The gateway stamps the value's expiry by its expiry clock: a clock fault on the value, as on a holder.
        p.gatewayClock(world::expiryClockErrorMillis, S_MILLIS);
        puts.add(p);
        return p;
    }

    /**
     * Rule 1a: when a put's OK reaches the client, at least W nodes hold a record of it; with {@code --fsync}, a
     * synced one. A put short of W only because disk faults destroyed copies before its OK is counted, not broken,
     * unless under {@code --fsync} a power loss took one (it cannot take a synced copy). Also counts the put among the
     * losses if every copy is already gone.
     */
    void putDone(PutRecord p, Message reply) {
        if (!(reply instanceof PutReply r) || r.status() != Status.OK) {
            if (p.droppedByLiar || p.overLiarsShare(liars, reply)) {
                tally.countDeniedByLiars();
            } else {
                liveness(p.startNanos, p.key, "put of " + p.name() + ": " + reply);
            }
            return;
        }
        p.ackNanos = now();
        p.gatewayClock(world::expiryClockErrorMillis, S_MILLIS);
        p.holdersAtAck = stores.holders(p, true);
        int copies = fsync ? stores.durableCopies(p) : stores.copies(p);
        if (copies < writeQuorum) {
            Set<Integer> destroyed = new TreeSet<>(fsync ? p.diskLostAt : p.lostAt);
            destroyed.removeAll(stores.recordHolders(p));
            int liarAcks = p.liarAckers == null ? 0 : p.liarAckers.size();
            if (copies + destroyed.size() >= writeQuorum) {
                tally.countAckedAfterDestroyed();
            } else if (liarAcks > 0 && copies + destroyed.size() + liarAcks >= writeQuorum) {
                p.ackedOnLiarsWord = true;
                tally.countAckedOnLiarsWord();
            } else {
                tally.violation(Rule.W_COPIES_AT_ACK, p.key, p.name() + " acknowledged (" + r.replicas() + " acks reported)"
                        + " with " + copies + (fsync ? " synced" : "") + " copies held; destroyed by disk faults on "
                        + p.lostAt + " (whole disks " + p.diskLostAt + "); W = " + writeQuorum);
            }
        }
        // Every copy destroyed before the OK and copies in flight arriving since is no loss (CI seed 38, all attacks).
        p.lostToDiskFaults &= stores.copies(p) == 0;
        if (p.lostToDiskFaults) {
            lost(p);
        }
    }

    /**
     * An acknowledged put lost every copy to disk faults: counted; under {@code --fsync}, rule 1b. Not a put within S
     * of its true expiry: its other copies may have been purged rightly, and the fault took what was left. Nor a put
     * acknowledged on liars' word whose real copies (fewer than W) whole disks took: what the liars' acks cost.
     */
    private void lost(PutRecord p) {
        if (p.lossCounted || !p.acked() || now() >= p.earliestExpiryNanos() - S_NANOS) {
            return;
        }
        p.lossCounted = true;
        boolean powerLoss = p.diskLostAt.size() < p.lostAt.size();
        tally.countLoss(powerLoss);
        if (fsync && p.diskLostAt.size() < writeQuorum && (powerLoss || !p.ackedOnLiarsWord)) {
            tally.violation(Rule.LOST_UNDER_FSYNC, p.key, p.name() + " acknowledged at " + p.ackNanos / 1e9 + " s lost: "
                    + "copies destroyed on " + p.lostAt + ", whole disks only on " + p.diskLostAt + "; W = "
                    + writeQuorum);
        }
    }

    /**
     * The run's liars: never counted among the honest holders of a value; when they {@code refuseTombstones}, nor
     * their own live copy of a removed value as its resurrection.
     */
    void liars(Collection<Integer> indexes, boolean refuseTombstones) {
        liars = Set.copyOf(indexes);
        removed.liars(refuseTombstones ? liars : Set.of());
    }

    /**
     * Nodes that take every copy sent them and store none (liars faking acks): rule 6 owes them nothing, and, when
     * {@code answersHonest} (they forge no get answer), a get one of them answers misses what it was never given.
     */
    void storeNothing(Collection<Integer> liars, boolean answersHonest) {
        storeNothing = Set.copyOf(liars);
        readable.storeNothing(answersHonest ? storeNothing : Set.of());
    }

    Set<Integer> storeNothing() {
        return storeNothing;
    }

    /**
     * A liar acknowledged a copy of the put of {@code valueHash} under {@code key} to its gateway, storing none;
     * {@code dropped}: it was routed the put itself and passed it on to no one.
     */
    void liarAcked(Id key, Bytes valueHash, int liar, boolean dropped) {
        puts.forPut(key, valueHash, p -> {
            p.droppedByLiar |= dropped;
            p.liarAckers = PutRecord.with(p.liarAckers, liar);
        });
    }

    /** A liar put the bytes of {@code valueHash} under {@code key} with a binding of its own, racing their put. */
    void liarRaced(Id key, Bytes valueHash) {
        puts.forPut(key, valueHash, p -> p.racedByLiar = true);
    }

    /**
     * A liar acknowledged a tombstone of {@code valueHash} under {@code key} to its remove's gateway, writing none;
     * {@code dropped}: it was routed the remove itself and passed it on to no one.
     */
    void liarAckedRemove(Id key, Bytes valueHash, int liar, boolean dropped) {
        puts.forPut(key, valueHash, p -> {
            p.removeDroppedByLiar |= dropped;
            p.liarRemoveAckers = PutRecord.with(p.liarRemoveAckers, liar);
        });
    }

    /**
     * What a liar's attack achieved, seen by the attack itself: a putter's secret at a liar (rule 2c,
     * {@link LiarNodes}), a put stored in another node's name (2d, {@link OriginForgery}), an honest clock steered
     * (3a, {@link ClockLies}).
     */
    void liarAchieved(Rule rule, String detail) {
        tally.violation(rule, detail);
    }

    /** Whether node {@code index}'s own clock had a fault in this run (its expiry clock may then be off on its own). */
    boolean clockFaulted(int index) {
        return puts.clockFaulted(index);
    }

    void removeStarted(PutRecord p) {
        p.removeStartNanos = Math.min(p.removeStartNanos, now());
    }

    void removeDone(PutRecord p, long startNanos, Message reply) {
        if (reply instanceof RemoveReply r && r.status() == Status.OK) {
            p.removeAckNanos = Math.min(p.removeAckNanos, now());
            stores.noteTombstones(p);
            if (p.tombstoneAt.isEmpty() && p.faultDuringRemove) {
                // Its only tombstones may have been unsynced writes a power loss took before the OK arrived.
                p.removeUndone = true;
                tally.countRemoveUndone();
            } else if (p.tombstoneAt.isEmpty() && p.liarRemoveAckers != null
                    && p.liarRemoveAckers.size() >= writeQuorum) {
                // W liars acked it (the bound of docs/security.md: L liars' acks leave W − L tombstones).
                p.removeUndone = true;
                tally.countRemoveOnLiarsWord();
            } else if (p.tombstoneAt.isEmpty()) {
                tally.violation(Rule.REMOVE_ACK_NO_TOMBSTONE, p.key, "remove of " + p.name() + " acknowledged with no "
                        + "node holding its tombstone" + (p.liarRemoveAckers == null ? ""
                        : "; liars that acked it: " + p.liarRemoveAckers));
            }
        } else if (reply instanceof RemoveReply r && r.status() == Status.FORBIDDEN) {
            tally.violation(Rule.REMOVE_REFUSED_TO_PUTTER, p.key, "remove of " + p.name() + " with its own secret refused: "
                    + r.detail());
        } else if (p.removeDroppedByLiar || (p.racedByLiar || p.liarAckers != null)
                && stores.heldForItsPutter(p, liars) < writeQuorum) {
            // A liar dropped the remove, or left fewer than W honest nodes holding the value under its putter's
            // binding (it raced the put with its own, or acked a copy it never stored): W tombstones cannot be had.
            tally.countDeniedByLiars();
        } else {
            liveness(startNanos, p.key, "remove of " + p.name() + ": " + reply);
        }
    }

    /** A get of {@code key} starts, through gateway {@code gateway} (-1: none serving). */
    GetRecord getStarted(Id key, int gateway) {
        Map<Bytes, List<Integer>> liveAtStart = new HashMap<>();
        Map<Bytes, Set<Integer>> toldAtStart = new HashMap<>();
        Map<Bytes, List<Integer>> freshAtStart = new HashMap<>();
        for (PutRecord p : puts.puts(key)) {
            if (p.removeAckNanos != Long.MAX_VALUE) {
                stores.noteTombstones(p);
                liveAtStart.put(p.hash, stores.holders(p, true));
                toldAtStart.put(p.hash, new TreeSet<>(p.tombstoneAt.keySet()));
            }
            if (p.acked() && now() - p.ackNanos < inFlightNanos) {
                freshAtStart.put(p.hash, stores.holders(p, true));
            }
        }
        return new GetRecord(key, now(), liveAtStart, toldAtStart, freshAtStart, gateway,
                diagnosis.trueReplicas(key), new HashSet<>(), new ArrayList<>());
    }

    /**
     * One page of get {@code g}'s answer: rule 2 (never put, removed) and rule 3 for each value returned; when it is
     * the last page (no placemark), rule 1 for the whole answer. Returns whether more pages follow.
     */
    boolean getDone(GetRecord g, Message reply) {
        if (!(reply instanceof GetReply r) || r.status() != Status.OK) {
            liveness(g.startNanos(), g.key(), "get of " + g.key().shortHex() + ": " + reply);
            return false;
        }
        pageValues(g, r);
        if (r.placemark().isEmpty()) {
            readable.check(g, r, g.returned());
            return false;
        }
        g.pages().add(new PageAnswer(r.placemark(), diagnosis.take(r)));
        return true;
    }

    /** Rules 2 and 3 for every value of one page of {@code g}; notes what it returned. */
    private void pageValues(GetRecord g, GetReply r) {
        for (ValueEntry v : r.values()) {
            Bytes hash = v.value().sha256();
            g.returned().add(hash);
            PutRecord p = puts.byHash(hash);
            if (p == null || !p.key.equals(g.key())) {
                tally.violation(Rule.NEVER_PUT, g.key(), g.gateway(), "get of " + g.key().shortHex() + " returned " + v.value().length()
                        + " bytes nobody put under it");
                continue;
            }
            removed.check(g, p);
            expiry.check(g, p, r);
        }
    }

    /**
     * One page of the final read of {@code g}'s key (rule 5): rules 2 and 3 for its values; at its last page, every
     * acknowledged value that must be live must be there, and a page that is not answered OK is a violation. Returns
     * whether more pages follow.
     */
    boolean finalPage(GetRecord g, Message reply) {
        if (!(reply instanceof GetReply r) || r.status() != Status.OK) {
            tally.violation(Rule.FINAL_READ, g.key(), g.gateway(), "key " + g.key().shortHex() + " unreadable: " + reply);
            return false;
        }
        pageValues(g, r);
        if (!r.placemark().isEmpty()) {
            return true;
        }
        List<PutRecord> must = readable.mustBeThere(g);
        finalKeys++;
        finalValues += must.size();
        for (PutRecord p : must) {
            if (g.returned().contains(p.hash)) {
                continue;
            }
            if (p.clockTainted || p.stampedEarly) {
                tally.countFinalMissAfterClockFault();
            } else {
                tally.violation(Rule.FINAL_READ, g.key(), g.gateway(), p.name() + " acknowledged at " + p.ackNanos / 1e9 + " s missing from "
                        + "the final read; live copies on " + stores.holders(p, true) + " of the key's replicas "
                        + diagnosis.trueReplicas(p.key));
            }
        }
        return false;
    }

    /** Rule 6: value {@code p} is not back on every one of its key's k replicas by the bound. */
    void copiesNotBack(PutRecord p, List<Integer> replicas, List<Integer> holders) {
        tally.violation(Rule.COPIES_NOT_BACK, p.key, p.name() + " on " + holders + " of its replicas " + replicas);
    }

    /** The value hashes node {@code index}'s store holds, before a disk fault. */
    Set<Bytes> held(int index) {
        return stores.held(index);
    }

    /** See {@link PutLedger#clockChanging}. */
    void clockChanging(int index) {
        puts.clockChanging(index);
    }

    /**
     * See {@link PutLedger#diskFault}; an acknowledged put it took the last copy of is counted as lost, an
     * acknowledged remove it took the last tombstone of as undone.
     */
    void diskFault(int index, Set<Bytes> before, boolean wholeDisk) {
        puts.diskFault(index, before, wholeDisk, tally::countRemoveUndone).forEach(this::lost);
    }

    /** Rule 4: an operation that started once the world had settled after the faults must succeed. */
    private void liveness(long startNanos, Id key, String detail) {
        if (startNanos >= livenessFromNanos) {
            tally.violation(Rule.LIVENESS, key, detail);
        }
    }

    /** Every put of {@code key} so far, for the workload's choice of what to remove. */
    List<PutRecord> puts(Id key) {
        return puts.puts(key);
    }

    EnumMap<Rule, Integer> counts() {
        return tally.counts();
    }

    List<Violation> kept() {
        return tally.kept();
    }

    /** Every put so far, for the copies rule. */
    List<PutRecord> allPuts() {
        return puts.all();
    }

    /** Keys the final read read to their last page. */
    int finalKeys() {
        return finalKeys;
    }

    /** Acknowledged values the final read checked. */
    long finalValues() {
        return finalValues;
    }

    FaultRunResult.Counted counted() {
        return tally.counted();
    }
}
