package io.rattan.sim.faults;

import io.rattan.core.testing.PlantedBugs;
import io.rattan.core.testing.PlantedBugs.Bug;

/**
 * The bugs the checker must catch (issues 16, 34, 36, 37 and 39), each a test-only switch of {@link PlantedBugs} (but
 * raw-secrets, a switch of the workload's clients).
 */
public enum PlantedBug {
    NONE(PlantedBugs.NONE, null),
    ACK_BELOW_W(PlantedBugs.of(Bug.PUT_ACK_BELOW_QUORUM), Rule.W_COPIES_AT_ACK),
    TOMBSTONE_RULE_OFF(PlantedBugs.of(Bug.TOMBSTONE_RULE_OFF), Rule.REMOVED_RETURNED),
    EXTRA_SECOND_ON_COPY(PlantedBugs.of(Bug.EXTRA_SECOND_ON_COPY), Rule.SERVED_PAST_EXPIRY),
    /** With {@code --fsync}: acknowledged before the sync. */
    DURABLE_BEFORE_SYNC(PlantedBugs.of(Bug.DURABLE_BEFORE_SYNC), Rule.W_COPIES_AT_ACK),
    REPAIR_DROPS_LAST_WANTED(PlantedBugs.of(Bug.REPAIR_DROPS_LAST_WANTED), Rule.COPIES_NOT_BACK),
    REPAIR_STREAMS_NO_TOMBSTONES(PlantedBugs.of(Bug.REPAIR_STREAMS_NO_TOMBSTONES), Rule.REMOVED_RETURNED),
    PAGE_SKIPS_BOUNDARY(PlantedBugs.of(Bug.PAGE_SKIPS_BOUNDARY), Rule.ACKED_PUT_READABLE),
    QUORUM_PAGE_NEVER_MORE(PlantedBugs.of(Bug.QUORUM_PAGE_NEVER_MORE), Rule.FINAL_READ),
    /** Issue 36's, with registers only: the root ignores a compare-and-swap's condition. */
    CAS_CONDITION_IGNORED(PlantedBugs.of(Bug.OWNED_CONDITION_IGNORED), Rule.REGISTER_NOT_LINEARIZABLE),
    /** Issue 37's, with watches only: a gateway never reads a replica again after its first read. */
    WATCH_NEVER_READS_AGAIN(PlantedBugs.of(Bug.WATCH_NEVER_READS_AGAIN), Rule.WATCH_MISSED),
    /**
     * Issue 39's, with liars that harvest secrets only: the workload's clients bind and remove with the secret itself,
     * as clients did before remove proofs (a switch of the workload, not of the nodes).
     */
    RAW_SECRETS(PlantedBugs.NONE, Rule.SECRET_TO_LIAR),
    /** Issue 39's, with liars that flood repair requests only: any range digest reads all it names, unbounded. */
    REPAIR_SCANS_UNBOUNDED(PlantedBugs.of(Bug.REPAIR_SCANS_UNBOUNDED), Rule.LIVENESS),
    /** Issue 39's, with liars that fake acks only: a gateway takes the root's OK, as before protocol 14. */
    PUT_ACKS_UNATTRIBUTED(PlantedBugs.of(Bug.PUT_ACKS_UNATTRIBUTED), Rule.W_COPIES_AT_ACK),
    /** Issue 39's, with liars that fake removes only: a gateway takes the root's OK, as before protocol 15. */
    REMOVE_ACKS_UNATTRIBUTED(PlantedBugs.of(Bug.REMOVE_ACKS_UNATTRIBUTED), Rule.REMOVE_ACK_NO_TOMBSTONE),
    /** Issue 39's, with liars that race bindings only: the first binding stored owns a value, as before protocol 16. */
    BINDINGS_FIRST_COME(PlantedBugs.of(Bug.BINDINGS_FIRST_COME), Rule.REMOVE_REFUSED_TO_PUTTER),
    /** Issue 39's, with liars that forge origins only: a root takes unsigned puts, as before protocol 17. */
    ORIGINS_UNCHECKED(PlantedBugs.of(Bug.ORIGINS_UNCHECKED), Rule.FORGED_ORIGIN_STORED),
    /** Issue 39's, with liars that flood the peer port only: a root takes every put its origin proves, unmetered. */
    ORIGINS_UNMETERED(PlantedBugs.of(Bug.ORIGINS_UNMETERED), Rule.ORIGIN_OVER_SHARE),
    /**
     * Issue 39's, with liars that capture slots only: no bound on one host's ids, in the routing table nor in the leaf
     * set ({@code --ids-per-ip -1}: a switch of the nodes' configuration, not of their code).
     */
    IDS_PER_HOST_UNBOUNDED(PlantedBugs.NONE, Rule.SLOTS_CAPTURED),
    /** Issue 39's, with liars that lie about the time only: the first three hosts heard correct a clock. */
    CLOCK_THREE_HOSTS(PlantedBugs.of(Bug.CLOCK_THREE_HOSTS), Rule.CLOCK_STEERED),
    /**
     * Issue 39's, with liars that answer gets empty: a gateway takes a get's answer from any node that names the
     * request, though its view says the node is no replica of the key.
     */
    GET_ANSWERS_UNCHECKED(PlantedBugs.of(Bug.GET_ANSWERS_UNCHECKED), Rule.ACKED_PUT_READABLE);

    private final PlantedBugs switches;
    private final Rule caughtBy;

    PlantedBug(PlantedBugs switches, Rule caughtBy) {
        this.switches = switches;
        this.caughtBy = caughtBy;
    }

    public PlantedBugs switches() {
        return switches;
    }

    /** The rule that must catch it (null for {@link #NONE}). */
    public Rule caughtBy() {
        return caughtBy;
    }

    /** As the command line spells it. */
    public String flag() {
        return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }
}
