package io.rattan.client;

import io.netty.channel.EventLoop;
import io.rattan.api.Status;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.Message;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * One client request carried to completion: attempts at successive gateways, each bounded by the attempt timeout,
 * separated by jittered backoff, all bounded by the number of retries and the call's deadline.
 *
 * <p>Threading: the call's state machine runs on one event loop, its own; events that arrive on other threads (a
 * reply on another loop, a failure on a caller's thread) hop onto it first, so the mutable fields need no lock.
 * Completion from outside (a caller's cancel, the client's close) only completes {@link #result()}; the cleanup
 * that follows touches nothing but thread-safe state.
 *
 * @param <T> the result type
 */
final class Call<T> {

    /** Turns a gateway's reply into the call's result, or throws the {@link RattanException} it stands for. */
    interface ReplyMapper<T> {
        T map(Message reply);
    }

    private final ClientRuntime runtime;
    private final Op op;
    private final Message request;
    private final ReplyMapper<T> mapper;
    private final EventLoop loop;
    private final long deadlineNanos;
    // The gateway of the first attempt; negative: the client's next round-robin turn.
    private final int firstGateway;
    // A gateway outside the configured ones (a replica's, for a one-hop get) for the only attempt; else null.
    private final Gateway direct;
    private final int retriesMax;
    private final CompletableFuture<T> result = new CompletableFuture<>();

    // Confined to the loop.
    private int attempts;
    // Attempts taken down by the client's close of a silent connection before their own timeout: not counted as
    // retries, at most one per gateway, so that one stalled gateway does not spend the retries of every call that
    // was waiting on it.
    private int freeAttempts;
    private int gatewayIndex;
    private final BitSet tried = new BitSet();
    // Each failed attempt's gateway and status, for the final failure's message.
    private final List<String> failedAttempts = new ArrayList<>();
    private RattanException lastFailure;

    // Written on the loop, read by cleanup on any thread.
    private volatile Attempt current;
    private volatile Future<?> attemptTimer;
    private volatile Future<?> backoffTimer;
    private volatile Future<?> deadlineTimer;

    /**
     * @param firstGateway the configured gateway of the first attempt, negative for the next round-robin turn
     * @param direct       null, or the gateway of the call's one attempt: a call sent there is not retried (its
     *                     caller falls back on its own)
     */
    Call(ClientRuntime runtime, Op op, Message request, ReplyMapper<T> mapper, EventLoop loop, long deadlineNanos,
         int firstGateway, Gateway direct) {
        this.runtime = runtime;
        this.firstGateway = firstGateway;
        this.direct = direct;
        this.retriesMax = direct != null ? 0 : runtime.config().maxRetries();
        this.op = op;
        this.request = request;
        this.mapper = mapper;
        this.loop = loop;
        this.deadlineNanos = deadlineNanos;
    }

    CompletableFuture<T> result() {
        return result;
    }

    /** Starts the first attempt on the call's loop. Called once, by the runtime, after admitting the call. */
    void start() {
        result.whenComplete((v, e) -> cleanup());
        try {
            deadlineTimer = loop.schedule(this::onDeadline, Math.max(0, deadlineNanos - System.nanoTime()),
                    TimeUnit.NANOSECONDS);
            loop.execute(this::nextAttempt);
        } catch (RejectedExecutionException e) {
            abort(runtime.closedFailure());
        }
    }

    /** Fails the call from any thread; used by the client's close. */
    void abort(RattanException failure) {
        fail(failure);
    }

    private void nextAttempt() {
        if (result.isDone()) {
            return;
        }
        if (runtime.isClosed()) {
            fail(runtime.closedFailure());
            return;
        }
        long remainingNanos = deadlineNanos - System.nanoTime();
        if (remainingNanos <= 0) {
            fail(totalTimeoutFailure());
            return;
        }
        attempts++;
        // The first attempt takes the client's round-robin turn (or the gateway a race gave this copy); each retry
        // moves on to the next gateway, one this call has not tried first, and never to a suspended one while
        // another is available.
        Gateway gateway;
        if (direct != null) {
            gateway = direct;
        } else {
            int first = firstGateway >= 0 ? firstGateway : runtime.nextStartIndex();
            gatewayIndex = runtime.chooseGateway(attempts == 1 ? first : gatewayIndex + 1, tried);
            tried.set(gatewayIndex);
            gateway = runtime.gateway(gatewayIndex);
        }
        Attempt attempt = new Attempt(this, runtime.nextRequestId(), gateway);
        current = attempt;
        long attemptNanos = Math.min(runtime.config().attemptTimeout().toNanos(), remainingNanos);
        attemptTimer = loop.schedule(() -> onAttemptTimeout(attempt), attemptNanos, TimeUnit.NANOSECONDS);
        try {
            gateway.connection().send(attempt, new Envelope(null, attempt.requestId(), request));
        } catch (RuntimeException e) {
            // Opening a connection fails synchronously only when the client is shutting down.
            onAttemptFailed(attempt, new RattanException(Status.UNAVAILABLE,
                    "cannot reach gateway " + gateway.address() + ": " + e, e));
        }
        if (result.isDone()) {
            // Cancelled or aborted while we were sending; do not leave the attempt in the pending table.
            attempt.abandon();
        }
    }

    private void onAttemptTimeout(Attempt attempt) {
        if (attempt.abandon()) {
            Connection connection = attempt.connection();
            if (connection != null) {
                connection.closeIfSilentSince(attempt.startNanos());
            }
            onAttemptFailed(attempt, new RattanException(Status.TIMEOUT, "no reply from gateway "
                    + attempt.gateway().address() + " within the attempt timeout of "
                    + runtime.config().attemptTimeout()));
        }
    }

    /** The attempt's reply; the attempt was already removed from its pending table. Any thread. */
    void onReply(Attempt attempt, Message reply) {
        if (!loop.inEventLoop()) {
            onLoop(() -> onReply(attempt, reply));
            return;
        }
        if (current != attempt || result.isDone()) {
            return;
        }
        cancel(attemptTimer);
        T value;
        try {
            value = mapper.map(reply);
        } catch (RattanException e) {
            onFailure(e);
            return;
        } catch (RuntimeException e) {
            fail(new RattanException(Status.INTERNAL,
                    op.tag() + ": cannot read the reply " + reply.type() + ": " + e, e));
            return;
        }
        succeed(value);
    }

    /** The attempt failed; it was already removed from its pending table. Any thread. */
    void onAttemptFailed(Attempt attempt, RattanException failure) {
        if (!loop.inEventLoop()) {
            onLoop(() -> onAttemptFailed(attempt, failure));
            return;
        }
        if (current != attempt || result.isDone()) {
            return;
        }
        cancel(attemptTimer);
        if (attempt.wasTakenDown() && freeAttempts < runtime.gatewayCount() && direct == null) {
            freeAttempts++;
        }
        onFailure(failure);
    }

    private void onFailure(RattanException failure) {
        lastFailure = failure;
        Attempt attempt = current;
        failedAttempts.add((attempt != null ? attempt.gateway().address() : "?") + " " + failure.status());
        if (!RattanException.isRetryable(failure.status())) {
            fail(failure);
            return;
        }
        if (runtime.isClosed()) {
            fail(runtime.closedFailure());
            return;
        }
        if (attempts - freeAttempts > retriesMax) {
            fail(new RattanException(failure.status(), op.tag() + " failed after "
                    + attempts + " attempt(s) (" + String.join(", ", failedAttempts) + "); last: "
                    + failure.getMessage(), failure));
            return;
        }
        long delayNanos = runtime.backoff().delayNanos(attempts, ThreadLocalRandom.current());
        if (failure.status() == Status.RATE_LIMITED) {
            // The gateway said how long to wait: never retry sooner.
            runtime.metrics().rateLimited(op);
            delayNanos = Math.max(delayNanos, failure.retryAfter().toNanos());
        }
        if (System.nanoTime() + delayNanos - deadlineNanos >= 0) {
            // Waiting would take us past the deadline: no attempt could start in time.
            fail(totalTimeoutFailure());
            return;
        }
        runtime.metrics().retry(op);
        backoffTimer = loop.schedule(this::nextAttempt, delayNanos, TimeUnit.NANOSECONDS);
    }

    private void onDeadline() {
        if (result.isDone()) {
            return;
        }
        fail(totalTimeoutFailure());
    }

    private RattanException totalTimeoutFailure() {
        return new RattanException(Status.TIMEOUT, op.tag() + " did not complete within the total timeout of "
                + runtime.config().totalTimeout() + " (" + attempts + " attempt(s)"
                + (failedAttempts.isEmpty() ? "" : ": " + String.join(", ", failedAttempts))
                + (lastFailure != null ? "; last: " + lastFailure.getMessage() : "") + ")", lastFailure);
    }

    private void onLoop(Runnable task) {
        try {
            loop.execute(task);
        } catch (RejectedExecutionException e) {
            fail(runtime.closedFailure());
        }
    }

    /**
     * Completes the result after releasing the call: callers that wait on the result must find the call already
     * gone (its in-flight count, its timers), and CompletableFuture runs dependents last-registered first, so a
     * cleanup registered as a dependent could run after the caller woke.
     */
    private void succeed(T value) {
        cleanup();
        result.complete(value);
    }

    private void fail(Throwable failure) {
        cleanup();
        result.completeExceptionally(failure);
    }

    /** Runs once the result is complete (and before, on every path that completes it here); idempotent, thread-safe. */
    private void cleanup() {
        cancel(attemptTimer);
        cancel(backoffTimer);
        cancel(deadlineTimer);
        Attempt attempt = current;
        if (attempt != null) {
            attempt.abandon();
        }
        runtime.release(this);
    }

    private static void cancel(Future<?> timer) {
        if (timer != null) {
            timer.cancel(false);
        }
    }
}
