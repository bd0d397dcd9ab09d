package io.rattan.client;

import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.api.ValueFilter;
import java.util.Locale;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * Hands a call's outcome to its caller: records the call's timer before the caller sees the outcome, completes the
 * caller's future on the completion executor (never on an event loop), passes on a caller's cancel, and makes every
 * failure a {@link RattanException}. Every public call of {@link RattanClient} returns through it, so that the
 * client's promises on threads, metrics and exceptions hold for each one alike.
 */
final class Delivery {

    private final ClientRuntime runtime;

    Delivery(ClientRuntime runtime) {
        this.runtime = runtime;
    }

    /** As {@link #toCaller(Op, long, CompletableFuture, Function)}, every result counted a success. */
    <T> CompletableFuture<T> toCaller(Op op, long startNanos, CompletableFuture<T> inner) {
        return toCaller(op, startNanos, inner, r -> ClientMetrics.SUCCESS);
    }

    /**
     * The caller's future for a call of {@code op} started at {@code startNanos} and carried out by {@code inner}.
     *
     * @param outcomeOf the timer's {@code outcome} tag for a successful result
     */
    <T> CompletableFuture<T> toCaller(Op op, long startNanos, CompletableFuture<T> inner,
                                      Function<T, String> outcomeOf) {
        return toCaller(op, startNanos, inner, outcomeOf, UnaryOperator.identity());
    }

    /**
     * As {@link #toCaller(Op, long, CompletableFuture, Function)}, the result passed through {@code finish} on the
     * completion executor first: work too slow for an event loop (checking signatures), done once per call.
     */
    <T> CompletableFuture<T> toCaller(Op op, long startNanos, CompletableFuture<T> inner,
                                      Function<T, String> outcomeOf, UnaryOperator<T> finish) {
        CompletableFuture<T> outer = new CompletableFuture<>();
        inner.whenComplete((value, error) -> {
            long nanos = System.nanoTime() - startNanos;
            if (error == null) {
                runtime.metrics().record(op, outcomeOf.apply(value), nanos);
                runtime.completeOff(() -> {
                    try {
                        outer.complete(finish.apply(value));
                    } catch (RuntimeException e) {
                        outer.completeExceptionally(Failures.asRattan(e, op));
                    }
                });
                return;
            }
            Throwable cause = Failures.unwrap(error);
            if (cause instanceof CancellationException) {
                runtime.metrics().record(op, ClientMetrics.CANCELLED, nanos);
                runtime.completeOff(() -> outer.cancel(false));
                return;
            }
            RattanException failure = Failures.asRattan(cause, op);
            runtime.metrics().record(op, failure.status().name().toLowerCase(Locale.ROOT), nanos);
            runtime.completeOff(() -> outer.completeExceptionally(failure));
        });
        outer.whenComplete((value, error) -> {
            if (outer.isCancelled()) {
                inner.cancel(false);
            }
        });
        return outer;
    }

    /** The caller's future for a get of {@code key}: owned values whose signatures fail are dropped first. */
    CompletableFuture<GetResult> getToCaller(String namespace, Id key, long startNanos,
                                             CompletableFuture<GetResult> inner) {
        return getToCaller(namespace, key, ValueFilter.NONE, startNanos, inner);
    }

    /** As {@link #getToCaller(String, Id, long, CompletableFuture)}, for a get of the values that pass {@code filter}. */
    CompletableFuture<GetResult> getToCaller(String namespace, Id key, ValueFilter filter, long startNanos,
                                             CompletableFuture<GetResult> inner) {
        return toCaller(Op.GET, startNanos, inner, r -> ClientMetrics.SUCCESS,
                r -> OwnedReads.checked(namespace, key, filter, r, runtime.metrics()));
    }

    /** The caller's future for a put of a value the wire cannot carry, failed before it is sent. */
    <T> CompletableFuture<T> tooLarge(Op op, long startNanos, int length) {
        return toCaller(op, startNanos, CompletableFuture.failedFuture(new RattanException(Status.TOO_LARGE,
                op.tag() + ": the value has " + length + " bytes; the wire protocol carries at most "
                        + RattanClient.VALUE_BYTES_MAX)));
    }
}
