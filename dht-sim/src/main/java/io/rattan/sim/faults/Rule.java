package io.rattan.sim.faults;

/** What the checker asserts (docs/testing.md states each rule and its exemptions). */
public enum Rule {
    /**
     * Rule 1a: a put is acknowledged only when W nodes hold it (with {@code --fsync}, hold it synced); copies a disk
     * fault destroyed before the acknowledgement are counted as such, never toward W.
     */
    W_COPIES_AT_ACK("1a", "put acknowledged with fewer than W copies"),
    /** Rule 1b: with {@code --fsync}, no power loss takes an acknowledged put: only whole-disk losses can. */
    LOST_UNDER_FSYNC("1b", "acknowledged put lost to a power loss under --fsync"),
    /** Rule 1: an acknowledged put stays readable with exactly its value, unless every copy was lost to disk faults. */
    ACKED_PUT_READABLE("1", "acknowledged put missing from a get"),
    /**
     * Rule 1, where a node that held a copy had its clock stepped or skewed while holding it: the wall-clock TTL
     * finding, kept apart so that it does not hide the others.
     */
    ACKED_PUT_READABLE_CLOCK("1", "acknowledged put missing, after a clock fault on a holder"),
    /**
     * Rule 2a: when a remove's OK reaches the client, some node holds its tombstone (crashed nodes' disks count), unless
     * a disk fault hit a holder of the value while the remove was under way (the remove is then undone, counted); with
     * none anywhere, rule 2's resurrection half would excuse the value's return forever (a tombstone nobody holds tells
     * nobody).
     */
    REMOVE_ACK_NO_TOMBSTONE("2a", "remove acknowledged with no tombstone held"),
    /**
     * Rule 2b: a remove with the secret of the put that stored the value is never refused as FORBIDDEN: the value's
     * remove right is its putter's (another put of the same bytes with another secret must not take it).
     */
    REMOVE_REFUSED_TO_PUTTER("2b", "remove with the putter's own secret refused"),
    /**
     * Rule 2c (with liars): a putter's secret reaches no liar: its client binds the value to the value's remove proof
     * and removes it with the proof, so what a remove and its tombstone carry opens that value only.
     */
    SECRET_TO_LIAR("2c", "a putter's secret reached a liar"),
    /**
     * Rule 2d (with liars): a key's root stores a put only in the name of the node that sent it onto the peer port,
     * so that no node spends another's rate and share there.
     */
    FORGED_ORIGIN_STORED("2d", "put stored in another node's name"),
    /**
     * Rule 2e (with liars): a key's root takes from one origin's puts on the peer port no more live bytes than its
     * share ({@link io.rattan.core.node.OriginLimits}), so that a node pays there as a client does at a gateway.
     */
    ORIGIN_OVER_SHARE("2e", "root took more of one origin's puts than its share"),
    /** Rule 2: no get returns a value never put. */
    NEVER_PUT("2", "get returned a value never put"),
    /**
     * Rule 2: no get returns a value whose remove was acknowledged, unless a live node its tombstone has not reached
     * holds it, and only for {@link Checker#TOMBSTONE_BOUND_NANOS} after that node could have been told.
     */
    REMOVED_RETURNED("2", "get returned a removed value"),
    /** Rule 3: no node whose clock error is at most S serves a value later than its true expiry + S. */
    SERVED_PAST_EXPIRY("3", "value served past its true expiry + S"),
    /**
     * Rule 3a (with liars): no honest node's expiry clock is moved more than 2 S off the true time, unless its own
     * clock had a fault: peers' times correct it only by a median over distinct hosts.
     */
    CLOCK_STEERED("3a", "expiry clock moved more than 2 S off true time by peers"),
    /** Rule 3, for a value a node held while its clock was stepped or skewed: the wall-clock TTL finding. */
    SERVED_PAST_EXPIRY_CLOCK("3", "value served past expiry + S, after a clock fault on a holder"),
    /** Rule 4 (budget profile): once faults stopped and the world settled, every operation completes. */
    LIVENESS("4", "operation failed after faults stopped"),
    /** Rule 5: at the end, a quorum read of every key, page by page, returns every acknowledged live value. */
    FINAL_READ("5", "key unreadable or value missing at the final read"),
    /** Rule 6: once the faults stop, every live value is back on its key's k replicas within a bound. */
    COPIES_NOT_BACK("6", "value not back on its k replicas in time"),
    /**
     * Rule 7 (with registers): the compare-and-swaps and quorum reads of an owned value form a linearizable history,
     * checked per key, while the key's root stays put and no partition is in force; a check out of steps counts too.
     */
    REGISTER_NOT_LINEARIZABLE("7", "register history not linearizable (root unchanged)"),
    /**
     * Rule 7, for a key whose root changed or that had a partition in force while its history ran: the guarantee does
     * not cover it (docs/http-api.md, "Owned values"); kept apart so that it does not hide the others.
     */
    REGISTER_NOT_LINEARIZABLE_ROOT_CHANGED("7", "register history not linearizable (root changed or partition)"),
    /**
     * Rule 8 (with watches): every put acknowledged after a watch's READY, not removed and live at the end, reached
     * every watch that lived to the end (its gateway never crashed or restarted).
     */
    WATCH_MISSED("8", "put acknowledged after READY never reached a watch"),
    /**
     * Rule 9 (with liars only): no node's routing table holds more ids of one host, other than its own, than the
     * default per-host bound, so that one host cannot be the first hop of most of its routes.
     */
    SLOTS_CAPTURED("9", "routing table held more ids of one host than the bound");

    /** Whether a violation fails the run; the rest are reported only, outside any guarantee. */
    public boolean asserted() {
        return this != REGISTER_NOT_LINEARIZABLE_ROOT_CHANGED;
    }

    private final String number;
    private final String description;

    Rule(String number, String description) {
        this.number = number;
        this.description = description;
    }

    public String number() {
        return number;
    }

    public String description() {
        return description;
    }
}
