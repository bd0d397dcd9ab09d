package io.rattan.node;

import io.netty.channel.EventLoop;
import io.rattan.core.msg.Message;
import io.rattan.core.net.Contact;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How threads other than a node's loop reach it: posting tasks, bounded waits on them, and the futures handed out to
 * callers. It exists because only the loop may touch the node, yet callers (gateways, tests, tools) live on other
 * threads; and because a future handed out must not outlive the loop, every one is tracked until it completes, so
 * that {@link #failOutstanding} can complete the rest when the loop shuts down and no caller waits on a dead loop.
 */
final class LoopGate {

    // RattanNode's logger: its lines keep the name operators and log filters know them by.
    private static final Logger log = LoggerFactory.getLogger(RattanNode.class);

    private final EventLoop loop;
    // The node's contact, read when a message names it; null until the node has one.
    private final Supplier<Contact> contact;
    private final Set<CompletableFuture<Message>> outstandingReplies = ConcurrentHashMap.newKeySet();
    private final Set<CompletableFuture<?>> outstandingCalls = ConcurrentHashMap.newKeySet();

    LoopGate(EventLoop loop, Supplier<Contact> contact) {
        this.loop = loop;
        this.contact = contact;
    }

    /** Posts {@code task} to the loop; false when the loop no longer takes tasks. */
    boolean post(Runnable task) {
        try {
            loop.execute(task);
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
    }

    /**
     * A future that {@code body} completes on the loop, tracked until it completes. It fails at once when the loop
     * is gone ("closed"), and on the loop, without running {@code body}, when {@code running} says the node is not
     * ("not running"). {@code body} must complete the future, exceptionally for its own failures.
     */
    <T> CompletableFuture<T> onLoop(BooleanSupplier running, Consumer<CompletableFuture<T>> body) {
        CompletableFuture<T> result = track(outstandingCalls, new CompletableFuture<>());
        boolean posted = post(() -> {
            if (!running.getAsBoolean()) {
                result.completeExceptionally(new IllegalStateException("node " + contact.get() + " is not running"));
                return;
            }
            body.accept(result);
        });
        if (!posted) {
            result.completeExceptionally(new IllegalStateException("node " + contact.get() + " is closed"));
        }
        return result;
    }

    /** A future for a client's reply, tracked until it completes; {@link #failOutstanding} answers it. */
    CompletableFuture<Message> reply() {
        return track(outstandingReplies, new CompletableFuture<>());
    }

    /** Runs {@code task} on the loop and waits for it (bounded); returns at once if the loop is gone. */
    void runOnLoop(Runnable task, long timeoutMillis) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        if (!post(() -> {
            try {
                task.run();
            } finally {
                done.complete(null);
            }
        })) {
            return;
        }
        try {
            done.get(timeoutMillis, TimeUnit.MILLISECONDS);
        } catch (TimeoutException | ExecutionException e) {
            log.warn("{}: loop task did not finish: {}", contact.get(), e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Waits for {@code f} (bounded), unwrapping its failure; {@code what} names the call in the messages. */
    <T> T await(CompletableFuture<T> f, long timeoutMillis, String what) {
        try {
            return f.get(timeoutMillis, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException re) {
                throw re;
            }
            throw new IllegalStateException(what + " failed on node " + contact.get(), cause);
        } catch (TimeoutException e) {
            throw new IllegalStateException("node " + contact.get() + " did not answer " + what + " within "
                    + timeoutMillis + " ms", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for " + what, e);
        }
    }

    /**
     * Once the loop is gone: answers every outstanding client reply with {@code notRunning} (a reply future promises
     * a reply, never an exception) and fails every other outstanding call.
     */
    void failOutstanding(Supplier<Message> notRunning) {
        for (CompletableFuture<Message> f : outstandingReplies) {
            f.complete(notRunning.get());
        }
        for (CompletableFuture<?> f : outstandingCalls) {
            f.completeExceptionally(new IllegalStateException("node " + contact.get() + " stopped"));
        }
    }

    private static <F extends CompletableFuture<?>> F track(Set<? super F> outstanding, F f) {
        outstanding.add(f);
        f.whenComplete((v, e) -> outstanding.remove(f));
        return f;
    }
}
