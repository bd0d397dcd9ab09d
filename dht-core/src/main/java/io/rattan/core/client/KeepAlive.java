package io.rattan.core.client;

import io.rattan.api.Status;

/**
 * When a permanent value is put again, for whoever keeps it alive (an HTTP gateway's list, a Java client's handle):
 * half its TTL after the start of a put that succeeded, so a failed round still leaves half a TTL to try again in; a
 * tenth of it (1 to 30 s) after one that failed; never again after a refusal for good.
 */
public final class KeepAlive {

    /** The shortest TTL of a permanent value, in seconds: it is put again every half TTL. */
    public static final int TTL_SECONDS_MIN = 10;
    private static final long RETRY_MILLIS_MIN = 1_000;
    private static final long RETRY_MILLIS_MAX = 30_000;

    private KeepAlive() {
    }

    /** The wait after a put of a value with {@code ttlMillis} that succeeded. */
    public static long afterSuccessMillis(long ttlMillis) {
        return ttlMillis / 2;
    }

    /** The wait after a put of a value with {@code ttlMillis} that failed and may succeed later. */
    public static long afterFailureMillis(long ttlMillis) {
        return Math.max(RETRY_MILLIS_MIN, Math.min(RETRY_MILLIS_MAX, ttlMillis / 10));
    }

    /**
     * Whether a put refused with {@code status} ends the keeping: the value was removed ({@link Status#FORBIDDEN}: its
     * tombstone refuses it) or its owner wrote a later sequence ({@link Status#CONFLICT}). Any other refusal may come
     * from one node on the way (its limits changed, its clock off) and is tried again.
     */
    public static boolean ends(Status status) {
        return status == Status.FORBIDDEN || status == Status.CONFLICT;
    }
}
