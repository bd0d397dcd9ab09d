package io.rattan.core.testing;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * Every fault-injection switch of the node logic in one place: deliberate bugs, each off by default, that the fault
 * simulator plants to prove its checker can fail (a checker that passes on code known to be wrong proves nothing).
 * Only the fault simulator and tests may name this type (an ArchUnit rule holds it); the real node never sets one.
 */
public final class PlantedBugs {

    /** One deliberate bug. */
    public enum Bug {
        /** The root answers a put OK with one copy fewer than W (at least one). */
        PUT_ACK_BELOW_QUORUM,
        /**
         * Where a live copy meets its tombstone the value wins: a replica answering a repair digest asks for a value
         * it holds as a tombstone (instead of sending the tombstone back), and writes whatever it is sent.
         */
        TOMBSTONE_RULE_OFF,
        /** A replica takes every copy it is sent with one second more than the copy carries. */
        EXTRA_SECOND_ON_COPY,
        /** With {@code --fsync}, the virtual disk calls a write durable before its sync (as if fsync were off). */
        DURABLE_BEFORE_SYNC,
        /** A repair session streams every record its peer wants but the last of each digest page. */
        REPAIR_DROPS_LAST_WANTED,
        /** Repair streams live values only: a replica that missed a remove is never sent its tombstone. */
        REPAIR_STREAMS_NO_TOMBSTONES,
        /** A one-replica get's page names the first value it did not return as its placemark: one value skipped. */
        PAGE_SKIPS_BOUNDARY,
        /** A replica read for a quorum get never says that more records follow a full page. */
        QUORUM_PAGE_NEVER_MORE,
        /** The root writes an owned put without checking its condition: a compare-and-swap decided by sequence alone. */
        OWNED_CONDITION_IGNORED,
        /**
         * A watch's gateway reads a replica's records only when it first registers there: a gap in the replica's
         * numbered news, or a registration the replica lost, goes unrepaired.
         */
        WATCH_NEVER_READS_AGAIN,
        /**
         * A key's root takes a put whatever its origin's signature, as before protocol 17, and counts it against the
         * origin it names: a node may spend another's share (the defence against forged origins, planted off).
         */
        ORIGINS_UNCHECKED,
        /**
         * A key's root takes every put on the peer port whose origin is proven, with no rate and no share counted
         * against that origin: a node may store as much as it sends (the defence against peer-port floods, planted
         * off).
         */
        ORIGINS_UNMETERED,
        /**
         * A node answers a range digest from anyone by reading all of the range it names, with no bound on the scans
         * one peer has running: a stranger's whole-ring digest costs it a scan of its whole store.
         */
        REPAIR_SCANS_UNBOUNDED,
        /**
         * A gateway takes its put's root at its word, as before protocol 14: an OK from any node that names the
         * request acknowledges the put, whoever stored it (the defence against faked acks, planted off).
         */
        PUT_ACKS_UNATTRIBUTED,
        /**
         * A gateway takes its remove's root at its word, as before protocol 15: an OK from any node that names the
         * request acknowledges the remove, whoever wrote a tombstone (the defence against faked removes, planted off).
         */
        REMOVE_ACKS_UNATTRIBUTED,
        /**
         * A replica keeps the first binding it stored for a value's bytes, as before protocol 16: a copy of the same
         * bytes under another binding (or none) is taken as held, and not stored, so whoever stored the bytes first
         * owns their remove (the defence against binding races, planted off).
         */
        BINDINGS_FIRST_COME,
        /**
         * A node's expiry clock takes every pong's time, not only its leaf-set members' it asked for, keeps the last
         * five hosts that told a time, not those that told none, and the first three after its boot, or after its
         * last correction, decide (the defence against clock liars, planted off: two liars among three hosts move it).
         */
        CLOCK_THREE_HOSTS,
        /**
         * A gateway takes a get's answer from whichever node names the request, as before issue 39's check of who may
         * answer: a node on the path that is no replica of the key may answer it empty, or with a value nobody put
         * (the defence against fake-empty and forged answers from the path, planted off).
         */
        GET_ANSWERS_UNCHECKED
    }

    /** No bug: how every node runs. */
    public static final PlantedBugs NONE = new PlantedBugs(EnumSet.noneOf(Bug.class));

    private final Set<Bug> bugs;

    private PlantedBugs(Set<Bug> bugs) {
        this.bugs = bugs;
    }

    /** The given bugs planted, the others off. */
    public static PlantedBugs of(Bug... planted) {
        EnumSet<Bug> set = EnumSet.noneOf(Bug.class);
        set.addAll(List.of(planted));
        return new PlantedBugs(set);
    }

    /** Whether {@code bug} is planted. */
    public boolean has(Bug bug) {
        return bugs.contains(bug);
    }

    public boolean putAckBelowQuorum() {
        return has(Bug.PUT_ACK_BELOW_QUORUM);
    }

    public boolean tombstoneRuleOff() {
        return has(Bug.TOMBSTONE_RULE_OFF);
    }

    public boolean putAcksUnattributed() {
        return has(Bug.PUT_ACKS_UNATTRIBUTED);
    }

    public boolean removeAcksUnattributed() {
        return has(Bug.REMOVE_ACKS_UNATTRIBUTED);
    }

    public boolean repairScansUnbounded() {
        return has(Bug.REPAIR_SCANS_UNBOUNDED);
    }

    public boolean originsUnchecked() {
        return has(Bug.ORIGINS_UNCHECKED);
    }

    public boolean originsUnmetered() {
        return has(Bug.ORIGINS_UNMETERED);
    }

    public boolean getAnswersUnchecked() {
        return has(Bug.GET_ANSWERS_UNCHECKED);
    }

    public boolean extraSecondOnCopy() {
        return has(Bug.EXTRA_SECOND_ON_COPY);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PlantedBugs p && p.bugs.equals(bugs);
    }

    @Override
    public int hashCode() {
        return bugs.hashCode();
    }

    @Override
    public String toString() {
        return "PlantedBugs" + bugs;
    }
}
