package io.rattan.sim.faults;

import io.rattan.core.id.Id;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.Messages.GetReply;
import io.rattan.core.msg.Messages.PutReply;
import io.rattan.core.msg.Messages.RemoveReply;
import io.rattan.core.msg.Messages.ValueEntry;
import io.rattan.core.msg.Status;
import io.rattan.core.store.Store;
import io.rattan.core.store.StoredRecord;
import io.rattan.core.util.Bytes;
import io.rattan.core.virtual.VirtualWorld;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Records every client operation with its virtual start and end times and checks the rules of docs/testing.md as
 * each answer arrives. It may read every node's store directly (the world's), as an oracle: to count a put's copies
 * when it is acknowledged, to know whether a disk fault destroyed the last copy of a value, and whether a removed
 * value's tombstone has reached every live node that held it. Single-threaded, on the world's thread.
 */
final class Checker {

    /**
     * S, the clock-error bound: a value may be served up to S after its true expiry by a node whose clock is within S
     * of the true time (copies travel with their remaining time, and a copy's transit adds to it).
     */
    static final long S_NANOS = 500_000_000L;
    private static final long S_MILLIS = S_NANOS / 1_000_000L;
    /**
     * A heal's first moment: a get that starts this soon after a partition healed is judged as one during it. The
     * node that answers may not have heard from the other side yet: it pings a neighbour it declared dead half a
     * second after the death, and one among a read key's replicas at most a second apart (LostContacts), and no
     * single-replica read can return a copy no message has carried to it (docs/durability.md, "Quorum gets";
     * docs/testing.md, rule 1).
     */
    static final long HEAL_MOMENT_NANOS = 1_000_000_000L;
    /**
     * How soon after a put's acknowledgement a get may still race its copies: the root acknowledges once W replicas
     * hold the put, and sends the others theirs at the same time (again, at the peer's RTO, while unanswered). A get
     * that starts this soon after, answered by a replica whose copy had been sent but had not arrived when the get
     * started, missed a copy in flight, not a lost one (docs/testing.md, rule 1).
     */
    static final long IN_FLIGHT_NANOS = 1_000_000_000L;
    /** Violations kept with their detail, per rule. */
    private static final int VIOLATIONS_KEPT = Integer.getInteger("rattan.sim.kept", 5);

    /** One put the workload made, and what happened to it since. */
    static final class PutRecord {
        final Id key;
        final Bytes value;
        final Bytes hash;
        final Bytes secret;
        final int ttlSeconds;
        final long startNanos;
        long ackNanos = -1;
        long removeStartNanos = Long.MAX_VALUE;
        long removeAckNanos = Long.MAX_VALUE;
        int destroyedCopies;
        boolean lostToDiskFaults;
        // Some node held a copy while its clock changed: the copy's expiry moved by the change.
        boolean clockTainted;
        // The gateway's expiry clock was more than S ahead (behind) when it stamped the expiry: the value may live
        // longer (shorter) than its true expiry allows; the root's cap (its own clock + TTL + 2 S) bounds the first.
        boolean stampedLate;
        boolean stampedEarly;
        // Nodes seen holding this value's tombstone (and not since losing it to a disk fault).
        final Set<Integer> tombstoneAt = new java.util.TreeSet<>();
        // For rule 1's diagnosis: the live holders when it was acknowledged, and nodes a disk fault took it from.
        List<Integer> holdersAtAck = List.of();
        final Set<Integer> lostAt = new java.util.TreeSet<>();

        PutRecord(Id key, Bytes value, Bytes secret, int ttlSeconds, long startNanos) {
            this.key = key;
            this.value = value;
            this.hash = value.sha256();
            this.secret = secret;
            this.ttlSeconds = ttlSeconds;
            this.startNanos = startNanos;
        }

        boolean acked() {
            return ackNanos >= 0;
        }
    }

    /**
     * A get in flight: its key, its start, which live nodes held each removed value live then, which nodes the
     * checker had seen holding its tombstone by then, and which live nodes held each value acknowledged less than
     * {@link #IN_FLIGHT_NANOS} before.
     */
    record GetRecord(Id key, long startNanos, Map<Bytes, List<Integer>> liveAtStart,
                     Map<Bytes, Set<Integer>> toldAtStart, Map<Bytes, List<Integer>> freshAtStart, int gateway) {
    }

    private final VirtualWorld world;
    private final int writeQuorum;
    private final Supplier<String> faultsInForce;
    private final FaultInjector.PartitionView partitions;
    private final long livenessFromNanos;
    private final GetDiagnosis diagnosis;
    // Looked up by hash only.
    private final Map<Bytes, PutRecord> byHash = new HashMap<>();
    private final Map<Id, List<PutRecord>> byKey = new LinkedHashMap<>();
    private final EnumMap<Rule, Integer> counts = new EnumMap<>(Rule.class);
    private final List<Violation> kept = new ArrayList<>();
    private long missesDuringPartition;
    private long missesAtHeal;
    private long missesInFlight;
    private long servedLateBeyondS;
    private long opsChecked;

    Checker(VirtualWorld world, Supplier<String> faultsInForce, FaultInjector.PartitionView partitions,
            long livenessFromNanos, GetDiagnosis diagnosis) {
        this.world = world;
        this.diagnosis = diagnosis;
        this.writeQuorum = world.config().writeQuorum();
        this.faultsInForce = faultsInForce;
        this.partitions = partitions;
        this.livenessFromNanos = livenessFromNanos;
        for (Rule r : Rule.values()) {
            counts.put(r, 0);
        }
    }

    private long now() {
        return world.scheduler().nanoTime();
    }

    /** A put through node {@code gateway} (negative: none serving) started. */
    PutRecord putStarted(Id key, Bytes value, Bytes secret, int ttlSeconds, int gateway) {
        PutRecord p = new PutRecord(key, value, secret, ttlSeconds, now());
        // The gateway stamps the value's expiry by its expiry clock: a clock fault on the value, as on a holder.
        long gatewayError = gateway >= 0 ? world.expiryClockErrorMillis(gateway) : 0;
        p.stampedLate = gatewayError > S_MILLIS;
        p.stampedEarly = gatewayError < -S_MILLIS;
        byHash.put(p.hash, p);
        byKey.computeIfAbsent(key, k -> new ArrayList<>()).add(p);
        return p;
    }

    void putDone(PutRecord p, Message reply) {
        opsChecked++;
        if (!(reply instanceof PutReply r) || r.status() != Status.OK) {
            liveness(p.startNanos, "put of " + name(p) + ": " + reply);
            return;
        }
        p.ackNanos = now();
        p.holdersAtAck = holders(p, true);
        int copies = copies(p);
        if (copies + p.destroyedCopies < writeQuorum) {
            violation(Rule.W_COPIES_AT_ACK, name(p) + " acknowledged (" + r.replicas() + " acks reported) with "
                    + copies + " copies held and " + p.destroyedCopies + " destroyed by disk faults; W = "
                    + writeQuorum);
        }
    }

    void removeStarted(PutRecord p) {
        p.removeStartNanos = Math.min(p.removeStartNanos, now());
    }

    void removeDone(PutRecord p, long startNanos, Message reply) {
        opsChecked++;
        if (reply instanceof RemoveReply r && r.status() == Status.OK) {
            p.removeAckNanos = Math.min(p.removeAckNanos, now());
            noteTombstones(p);
        } else {
            liveness(startNanos, "remove of " + name(p) + ": " + reply);
        }
    }

    /** A get of {@code key} starts, through gateway {@code gateway} (-1: none serving). */
    GetRecord getStarted(Id key, int gateway) {
        Map<Bytes, List<Integer>> liveAtStart = new HashMap<>();
        Map<Bytes, Set<Integer>> toldAtStart = new HashMap<>();
        Map<Bytes, List<Integer>> freshAtStart = new HashMap<>();
        for (PutRecord p : byKey.getOrDefault(key, List.of())) {
            if (p.removeAckNanos != Long.MAX_VALUE) {
                noteTombstones(p);
                liveAtStart.put(p.hash, holders(p, true));
                toldAtStart.put(p.hash, new java.util.TreeSet<>(p.tombstoneAt));
            }
            if (p.acked() && now() - p.ackNanos < IN_FLIGHT_NANOS) {
                freshAtStart.put(p.hash, holders(p, true));
            }
        }
        return new GetRecord(key, now(), liveAtStart, toldAtStart, freshAtStart, gateway);
    }

    void getDone(GetRecord g, Message reply) {
        opsChecked++;
        if (!(reply instanceof GetReply r) || r.status() != Status.OK) {
            liveness(g.startNanos(), "get of " + g.key().shortHex() + ": " + reply);
            return;
        }
        Set<Bytes> returned = new HashSet<>();
        for (ValueEntry v : r.values()) {
            Bytes hash = v.value().sha256();
            returned.add(hash);
            PutRecord p = byHash.get(hash);
            if (p == null || !p.key.equals(g.key())) {
                violation(Rule.NEVER_PUT, "get of " + g.key().shortHex() + " returned " + v.value().length()
                        + " bytes nobody put under it");
                continue;
            }
            checkNotRemoved(g, p);
            checkNotExpired(g, p, r);
        }
        if (r.placemark().isEmpty()) {
            checkAllPresent(g, r, returned);
        }
    }

    /**
     * A removed value may be returned only while some live node that its tombstone never reached holds it live (a
     * replica that missed the remove, not yet told): the get may have read that node. Once a node held the tombstone,
     * its holding the value live again is a resurrection.
     */
    private void checkNotRemoved(GetRecord g, PutRecord p) {
        if (p.removeAckNanos >= g.startNanos()) {
            return;
        }
        noteTombstones(p);
        // A node live at the get's start that had not been told then may have been read before its tombstone came:
        // judged by what the checker had seen at the start, not at the end (the tombstone may arrive meanwhile).
        Set<Integer> toldAtStart = g.toldAtStart().getOrDefault(p.hash, Set.of());
        boolean untold = false;
        for (int i : g.liveAtStart().getOrDefault(p.hash, List.of())) {
            untold |= !toldAtStart.contains(i);
        }
        Set<Integer> live = new java.util.TreeSet<>(g.liveAtStart().getOrDefault(p.hash, List.of()));
        live.addAll(holders(p, true));
        for (int i : holders(p, true)) {
            untold |= !p.tombstoneAt.contains(i);
        }
        if (!untold) {
            violation(Rule.REMOVED_RETURNED, name(p) + " returned by a get started "
                    + millis(g.startNanos() - p.removeAckNanos) + " ms after its remove was acknowledged; live on "
                    + live + ", which had all held its tombstone " + p.tombstoneAt);
        }
    }

    /** Remembers which nodes hold {@code p}'s tombstone now. */
    private void noteTombstones(PutRecord p) {
        for (int i = 0; i < world.size(); i++) {
            Optional<StoredRecord> r = world.store(i).read(p.key, p.hash);
            if (r.isPresent() && r.get().tombstone()) {
                p.tombstoneAt.add(i);
            }
        }
    }

    private void checkNotExpired(GetRecord g, PutRecord p, GetReply reply) {
        if (!p.acked()) {
            return;
        }
        long latestTrueExpiry = p.ackNanos + p.ttlSeconds * 1_000_000_000L;
        if (g.startNanos() <= latestTrueExpiry + S_NANOS) {
            return;
        }
        List<Integer> holders = holders(p, true);
        boolean accurate = false;
        for (int i : holders) {
            accurate |= Math.abs(world.clockOffsetMillis(i)) <= S_MILLIS;
        }
        if (holders.isEmpty()) {
            accurate = true;
            for (int i = 0; i < world.size(); i++) {
                accurate &= Math.abs(world.clockOffsetMillis(i)) <= S_MILLIS;
            }
        }
        if (accurate) {
            violation(p.clockTainted || p.stampedLate ? Rule.SERVED_PAST_EXPIRY_CLOCK : Rule.SERVED_PAST_EXPIRY, name(p) + " (ttl " + p.ttlSeconds + " s) served to a get started "
                    + millis(g.startNanos() - latestTrueExpiry) + " ms after its true expiry; live copies on nodes "
                    + holders + " with clock errors " + offsets(holders) + " ms" + expiryDetail(p, holders, reply,
                    latestTrueExpiry));
        } else {
            servedLateBeyondS++;
        }
    }

    /**
     * Why a value was served late: each holder's copy's expiry against the latest true expiry, and its expiry clock's
     * error, in ms (a copy stretched past its TTL, or a clock behind); and which node answered.
     */
    private String expiryDetail(PutRecord p, List<Integer> holders, GetReply reply, long latestTrueExpiryNanos) {
        long trueExpiryMillis = world.scheduler().epochMillis() + (latestTrueExpiryNanos - now()) / 1_000_000;
        StringBuilder b = new StringBuilder("; stamped expiry - true, expiry clock error (ms):");
        for (int i : holders) {
            Optional<StoredRecord> r = world.store(i).read(p.key, p.hash);
            b.append(' ').append(i).append('=')
                    .append(r.map(x -> Long.toString(x.expiresAtMillis() - trueExpiryMillis)).orElse("-"))
                    .append('/').append(world.expiryClockErrorMillis(i));
        }
        GetDiagnosis.Served s = diagnosis.peek(reply);
        return b.append("; answered by ").append(s == null ? "?" : s.node() + " (expiry clock error "
                + world.expiryClockErrorMillis(s.node()) + " ms)").toString();
    }

    private void checkAllPresent(GetRecord g, GetReply reply, Set<Bytes> returned) {
        long end = now();
        GetDiagnosis.Served answerer = null;
        boolean looked = false;
        for (PutRecord p : byKey.getOrDefault(g.key(), List.of())) {
            boolean mustBeThere = p.acked() && p.ackNanos < g.startNanos() && p.removeStartNanos > end
                    && !p.lostToDiskFaults && p.startNanos + p.ttlSeconds * 1_000_000_000L - S_NANOS > end;
            if (!mustBeThere || returned.contains(p.hash)) {
                continue;
            }
            if (partitions.partitionedDuring(g.startNanos(), end)) {
                missesDuringPartition++;
                continue;
            }
            if (partitions.healedWithin(HEAL_MOMENT_NANOS, g.startNanos())) {
                missesAtHeal++;
                continue;
            }
            if (!looked) {
                answerer = diagnosis.answerer(reply, g.gateway(), g.key());
                looked = true;
            }
            if (copyInFlight(g, p, answerer)) {
                missesInFlight++;
                continue;
            }
            boolean clock = p.clockTainted || p.stampedEarly;
            String why = "";
            if (!clock) {
                why = "; " + diagnosis.classify(p.hash, p.key, p.ackNanos, p.holdersAtAck, p.lostAt, g.startNanos(),
                        answerer, holders(p, true));
            }
            violation(clock ? Rule.ACKED_PUT_READABLE_CLOCK : Rule.ACKED_PUT_READABLE, name(p) + " acknowledged at " + seconds(p.ackNanos)
                    + " s missing from a get started at " + seconds(g.startNanos()) + " s; copies on nodes "
                    + holders(p, false) + " (alive: " + holders(p, true) + ")" + why);
        }
    }

    /**
     * Whether get {@code g} raced the copies of put {@code p}: it started less than {@link #IN_FLIGHT_NANOS} after the
     * acknowledgement, and its answerer, which did not hold the value then, had been sent a copy before it answered.
     */
    private boolean copyInFlight(GetRecord g, PutRecord p, GetDiagnosis.Served answerer) {
        List<Integer> holdersAtStart = g.freshAtStart().get(p.hash);
        return holdersAtStart != null && answerer != null && !holdersAtStart.contains(answerer.node())
                && diagnosis.copySent(answerer.node(), p.hash, answerer.atNanos());
    }

    /** The value hashes node {@code index}'s store holds, before a disk fault. */
    Set<Bytes> held(int index) {
        Set<Bytes> out = new HashSet<>();
        Store.Cursor cursor = Store.Cursor.START;
        while (true) {
            List<StoredRecord> page = world.store(index).scan(cursor, 1024);
            if (page.isEmpty()) {
                return out;
            }
            for (StoredRecord r : page) {
                out.add(r.valueHash());
                cursor = new Store.Cursor(r.key(), r.valueHash());
            }
        }
    }

    /**
     * Node {@code index}'s clock changes (called before and after): every copy it holds expires at another true time,
     * and a step back revives copies that had expired and were not purged yet.
     */
    void clockChanging(int index) {
        for (Bytes h : held(index)) {
            PutRecord p = byHash.get(h);
            if (p != null) {
                p.clockTainted = true;
            }
        }
    }

    /** A disk fault on node {@code index} destroyed what it held before ({@code before}) and holds no more. */
    void diskFault(int index, Set<Bytes> before) {
        Set<Bytes> after = held(index);
        for (Bytes h : before) {
            PutRecord p = byHash.get(h);
            if (p == null) {
                continue;
            }
            // What this disk held of a tombstone may be gone or back to the live value: a fault, not a resurrection.
            p.tombstoneAt.remove(index);
            if (after.contains(h)) {
                continue;
            }
            p.destroyedCopies++;
            p.lostAt.add(index);
            if (copies(p) == 0) {
                p.lostToDiskFaults = true;
            }
        }
    }

    /** Nodes (any, crashed ones with their disks included) holding a record of {@code p}, value or tombstone. */
    private int copies(PutRecord p) {
        int n = 0;
        for (int i = 0; i < world.size(); i++) {
            n += world.store(i).read(p.key, p.hash).isPresent() ? 1 : 0;
        }
        return n;
    }

    /** Nodes holding {@code p} as a live value; only those alive when {@code aliveOnly}. */
    private List<Integer> holders(PutRecord p, boolean aliveOnly) {
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < world.size(); i++) {
            if (aliveOnly && !world.isAlive(i)) {
                continue;
            }
            Optional<StoredRecord> r = world.store(i).read(p.key, p.hash);
            if (r.isPresent() && !r.get().tombstone()) {
                out.add(i);
            }
        }
        return out;
    }

    private String offsets(List<Integer> nodes) {
        List<Long> out = new ArrayList<>();
        for (int i : nodes) {
            out.add(world.clockOffsetMillis(i));
        }
        return out.toString();
    }

    private void liveness(long startNanos, String detail) {
        if (startNanos >= livenessFromNanos) {
            violation(Rule.LIVENESS, detail);
        }
    }

    private void violation(Rule rule, String detail) {
        if (counts.merge(rule, 1, Integer::sum) <= VIOLATIONS_KEPT) {
            kept.add(new Violation(rule, now() / 1e9, detail, faultsInForce.get()));
        }
    }

    private static String name(PutRecord p) {
        return "value " + p.hash.toHex().substring(0, 8) + " of key " + p.key.shortHex();
    }

    private static long millis(long nanos) {
        return nanos / 1_000_000L;
    }

    private static String seconds(long nanos) {
        return String.format(java.util.Locale.ROOT, "%.3f", nanos / 1e9);
    }

    /** Every put of {@code key} so far, for the workload's choice of what to remove. */
    List<PutRecord> puts(Id key) {
        return byKey.getOrDefault(key, List.of());
    }

    EnumMap<Rule, Integer> counts() {
        return new EnumMap<>(counts);
    }

    List<Violation> kept() {
        return List.copyOf(kept);
    }

    long missesDuringPartition() {
        return missesDuringPartition;
    }

    /** Acknowledged puts missing from a get that started in a heal's first moment ({@link #HEAL_MOMENT_NANOS}). */
    long missesAtHeal() {
        return missesAtHeal;
    }

    /** Acknowledged puts missing from a get that raced their copies ({@link #IN_FLIGHT_NANOS}). */
    long missesInFlight() {
        return missesInFlight;
    }

    long servedLateBeyondS() {
        return servedLateBeyondS;
    }

    long opsChecked() {
        return opsChecked;
    }
}
