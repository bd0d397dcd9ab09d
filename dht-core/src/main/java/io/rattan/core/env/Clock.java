package io.rattan.core.env;

/** Time as node logic sees it. The real node reads the system clocks; the virtual world a counter. */
public interface Clock {

    /** Monotonic time for measuring intervals. */
    long nanoTime();

    /** Wall-clock time, used only for value expiry, which must survive restarts. */
    long epochMillis();

    /**
     * A peer ({@code peer} names it) whose expiry clock read {@code peerEpochMillis} when it answered a request that
     * took {@code rttNanos} to come back, a peer this node chose to ask the time. A clock that keeps expiry safe
     * ({@code ExpiryClock}) corrects itself by its peers; others ignore it.
     */
    default void peerTime(Object peer, long peerEpochMillis, long rttNanos) {
        peerTime(peer, peerEpochMillis, rttNanos, true);
    }

    /**
     * As {@link #peerTime(Object, long, long)}; {@code asked}: false for a peer this node pinged for another reason
     * (a routing-table probe, a contact another node named), whose time an {@code ExpiryClock} does not count.
     */
    default void peerTime(Object peer, long peerEpochMillis, long rttNanos, boolean asked) {
    }

    /** Whether this clock corrects itself by its peers' times ({@link #peerTime}), so that a node should ask them. */
    default boolean correctedByPeers() {
        return false;
    }

    /** Whether {@link #epochMillis} may be trusted to purge expired records by (false: not confirmed since boot). */
    default boolean settled() {
        return true;
    }

    /**
     * Whether {@link #epochMillis} is not {@link #settled} and known to be off: a peer's time says so, or it restarted
     * behind its own last reading (default: no).
     */
    default boolean inDoubt() {
        return false;
    }

    /**
     * Whether a gateway may stamp a put's expiry by {@link #epochMillis} now: it is {@link #settled}, or peers have
     * answered since boot and none says it is off (default: yes). Until then a clock that booted wrong, its mark lost
     * with its disk, has had nobody to say so.
     */
    default boolean mayStamp() {
        return true;
    }
}
