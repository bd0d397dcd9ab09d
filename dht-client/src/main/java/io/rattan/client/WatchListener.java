package io.rattan.client;

/**
 * Hears a {@link Watch}'s events ({@link RattanClient#watch}). Called on the client's completion executor, never on
 * its event loops, one call at a time per watch and in the watch's order: a value, then later its removal or expiry;
 * {@link #onReady} once, after the values that were live when the watch began. A listener that throws is logged and
 * goes on hearing the watch. Only {@link #onValue} must be implemented.
 */
public interface WatchListener {

    /**
     * A value of the key, heard once: live when the watch began, or put since; for an owned value, also each newer
     * sequence (the same {@link GetResult.Value#owner()} slot, a higher {@code seq}). Owned values are verified
     * against their owner's signature before they are handed over, as a get's are.
     */
    void onValue(GetResult.Value value);

    /**
     * Every value live when the watch began has reached {@link #onValue}; from here on each event is a change. Called
     * once per watch, even when it moves to another gateway.
     */
    default void onReady() {
    }

    /** {@code value}, heard earlier, was removed (by its secret, or its owner's signed remove). */
    default void onRemoved(GetResult.Value value) {
    }

    /** {@code value}, heard earlier, reached the end of its TTL. */
    default void onExpired(GetResult.Value value) {
    }

    /**
     * The watch ended for good, not by its {@link Watch#close()}: with {@link io.rattan.api.Status#RATE_LIMITED}
     * when a gateway or its connection serves its most watches, a final status such as
     * {@link io.rattan.api.Status#BAD_REQUEST}, or {@link io.rattan.api.Status#UNAVAILABLE} when the
     * client closed. Nothing follows. (A gateway that fails is not an end: the watch moves to another.)
     */
    default void onEnded(RattanException cause) {
    }
}
