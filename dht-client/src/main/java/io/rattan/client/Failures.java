package io.rattan.client;

import io.rattan.api.Status;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * How any failure a call can end with reaches the caller as a {@link RattanException}: unwrapped from the
 * {@link CompletionException}s and {@link ExecutionException}s that futures add, an unexpected throwable made an
 * {@link Status#INTERNAL} one. One place for it, because the client's futures, its blocking {@code *Sync} methods and
 * {@link GetRacer} must all agree on what the caller sees.
 */
final class Failures {

    private Failures() {
    }

    /** The failure itself, without the future wrappers around it. */
    static Throwable unwrap(Throwable t) {
        Throwable c = t;
        while ((c instanceof CompletionException || c instanceof ExecutionException) && c.getCause() != null) {
            c = c.getCause();
        }
        return c;
    }

    /** The {@link RattanException} a call of {@code op} fails with for {@code t}. */
    static RattanException asRattan(Throwable t, Op op) {
        Throwable c = unwrap(t);
        if (c instanceof RattanException) {
            return (RattanException) c;
        }
        return new RattanException(Status.INTERNAL, op.tag() + " failed unexpectedly: " + c, c);
    }

    /**
     * Waits for {@code future} and returns its value, or throws its failure as a {@link RattanException}. An
     * interrupt cancels the future and keeps the thread's interrupt flag.
     */
    static <T> T await(CompletableFuture<T> future) {
        try {
            return future.get();
        } catch (ExecutionException e) {
            Throwable c = unwrap(e);
            if (c instanceof RattanException) {
                throw (RattanException) c;
            }
            throw new RattanException(Status.INTERNAL, "call failed unexpectedly: " + c, c);
        } catch (InterruptedException e) {
            future.cancel(false);
            Thread.currentThread().interrupt();
            throw new RattanException(Status.INTERNAL, "interrupted while waiting for the reply", e);
        }
    }
}
