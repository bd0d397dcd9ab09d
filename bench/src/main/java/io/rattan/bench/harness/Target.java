package io.rattan.bench.harness;

import io.rattan.api.Id;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;

/**
 * A deployment the harness measures: Rattan over its binary RPC or its HTTP API, or another DHT through an
 * adapter. Any thread may call it; the futures may complete on the target's own threads, so callbacks must not
 * block.
 */
interface Target extends AutoCloseable {

    /** Fetches every live value under {@code key}, as {@code mode} says; fails with a {@link TargetFailure}. */
    CompletableFuture<GetAnswer> get(Id key, GetMode mode);

    /** Stores {@code value} under {@code key} for {@code ttl}; fails with a {@link TargetFailure}. */
    CompletableFuture<Void> put(Id key, byte[] value, Duration ttl);

    /** Whether this target can perform {@code mode}; null if so, else why not. */
    String refuses(GetMode mode);

    /** Every mode this target performs, in {@link GetMode#all()}'s order: what {@code --modes all} means for it. */
    default List<GetMode> modes() {
        return GetMode.all().stream().filter(m -> refuses(m) == null).toList();
    }

    @Override
    void close();

    /**
     * What a get returned: the values, and what the answer says it cost (hops; messages and bytes counted in
     * band by the nodes of the answering copy; zero where the target does not say).
     */
    record GetAnswer(List<byte[]> values, int hops, long messages, long bytes) {
        public GetAnswer {
            values = List.copyOf(values);
        }
    }

    /** A get or put that failed; {@code timeout} when it failed by running out of time. */
    final class TargetFailure extends RuntimeException {
        private final boolean timeout;

        TargetFailure(boolean timeout, String message) {
            super(message, null, false, false);
            this.timeout = timeout;
        }

        boolean timeout() {
            return timeout;
        }

        /**
         * {@code e} as a failure, unwrapped from the CompletionException a future's callback sees; an HTTP
         * client's timeout (a {@link TimeoutException}) is a timeout.
         */
        static TargetFailure of(Throwable e) {
            Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
            if (cause instanceof TargetFailure) {
                return (TargetFailure) cause;
            }
            if (cause instanceof TimeoutException) {
                return new TargetFailure(true, String.valueOf(cause));
            }
            return new TargetFailure(false, String.valueOf(cause));
        }
    }
}
