package io.rattan.client;

import io.netty.channel.EventLoop;
import io.rattan.api.GetOptions;
import io.rattan.api.Status;
import io.rattan.core.client.GetRace;
import io.rattan.core.client.HedgeThreshold;
import io.rattan.core.env.Cancellable;
import io.rattan.core.env.Clock;
import io.rattan.core.env.Scheduler;
import io.rattan.core.msg.ClientMessages.ClientGet;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import io.rattan.core.msg.RequestMessages.GetReply;
import io.rattan.core.net.Contact;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Races copies of one get page through the client's gateways with core's {@link GetRace}: copy i goes first to
 * gateway (s + i) of a round-robin start s, so the g copies use g different gateways when the client knows that many
 * (else they wrap around). Each copy is an ordinary call, with its own attempt timeouts and retries on further
 * gateways, all under the page's deadline. The first good answer with a value wins (an empty one once every copy
 * answered: {@link GetRace}); the calls still out are then cancelled (their requests are not recalled from the wire,
 * their answers are dropped), but for a one-hop get's copies sent straight to replicas, whose late answers still
 * teach the image (how slow the replica was, or that it forwarded).
 *
 * <p>A {@link GetOptions#oneHop() one-hop} race sends its copies by the client's {@link ClientRingImage} instead:
 * copy i straight to the gateway of the i-th replica the image knows (the fastest measured first), its hedges after
 * the waits core's {@link io.rattan.core.client.OneHopRouter} gives (1.2 round trips to the replica before + 5 ms,
 * at most the one-hop threshold), and the copies beyond the known replicas through the configured gateways.
 *
 * <p>Every race runs on the runtime's one race loop, which also confines the client's {@link HedgeThreshold}s and
 * its ring image: every hedged get of this client learns from, and waits by, the same recent latencies.
 */
final class GetRacer {

    private final ClientRuntime runtime;
    private final EventLoop loop;
    private final Scheduler scheduler;
    private final HedgeThreshold threshold = HedgeThreshold.defaults();
    private final ClientRingImage image;

    GetRacer(ClientRuntime runtime) {
        this.runtime = runtime;
        this.loop = runtime.raceLoop();
        this.image = new ClientRingImage(runtime);
        if (runtime.config().loadRing()) {
            new RingLoader(runtime, image).start();
        }
        this.scheduler = new Scheduler() {
            @Override
            public Cancellable schedule(long delayNanos, Runnable task) {
                try {
                    ScheduledFuture<?> f = loop.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
                    return () -> f.cancel(false);
                } catch (RejectedExecutionException e) {
                    // The client is closing: its calls fail, and the race ends on their failures.
                    return Cancellable.NONE;
                }
            }

            @Override
            public void execute(Runnable task) {
                loop.execute(task);
            }
        };
    }

    private static final Clock CLOCK = new Clock() {
        @Override
        public long nanoTime() {
            return System.nanoTime();
        }

        @Override
        public long epochMillis() {
            return System.currentTimeMillis();
        }
    };

    /**
     * Races {@code request}, in namespace {@code scope}, as {@code options} say. Completes with the winning {@link GetReply} (status OK or
     * NOT_FOUND), or with the {@link RattanException} of the copy that failed last; cancelling it cancels every copy.
     */
    CompletableFuture<GetReply> race(ClientGet request, Scope scope, GetOptions options, long deadlineNanos) {
        Race race = new Race(request, scope.wrap(request), options, deadlineNanos);
        try {
            loop.execute(race::start);
        } catch (RejectedExecutionException e) {
            race.result.completeExceptionally(runtime.closedFailure());
        }
        return race.result;
    }

    /** One race; its fields are confined to the race loop, except the result. */
    private final class Race {
        private final ClientGet request;
        // What goes on the wire: the request, in its namespace.
        private final Message asked;
        private final GetOptions options;
        private final long deadlineNanos;
        private final CompletableFuture<GetReply> result = new CompletableFuture<>();
        private final List<CompletableFuture<Message>> copies = new ArrayList<>();
        // A one-hop get's copies sent straight to replicas: left to finish when the race ends, so that a late answer
        // still teaches the image where its replica answers (a copy that replica forwarded, cancelled, taught nothing
        // and was sent there again, round after round).
        private final List<CompletableFuture<Message>> direct = new ArrayList<>();
        private RattanException lastFailure;
        private int startGateway;
        // A one-hop get's replicas, its first copies' targets.
        private List<Contact> targets = List.of();

        Race(ClientGet request, Message asked, GetOptions options, long deadlineNanos) {
            this.request = request;
            this.asked = asked;
            this.options = options;
            this.deadlineNanos = deadlineNanos;
            // A caller's cancel stops every copy; hop to the loop, which owns the list.
            result.whenComplete((r, e) -> {
                if (result.isCancelled()) {
                    onLoop(() -> {
                        cancelCopies();
                        direct.forEach(c -> c.cancel(false));
                    });
                }
            });
        }

        void start() {
            if (result.isDone()) {
                return;
            }
            startGateway = runtime.nextStartIndex();
            if (!options.oneHop()) {
                GetRace.start(scheduler, CLOCK, options, threshold, GetRacer::good, this::launch, this::finish);
                return;
            }
            targets = image.targets(request.key());
            GetRace.start(scheduler, CLOCK, options, image.threshold(), image.hedgeWaitsNanos(targets, options),
                    GetRacer::good, this::launchOneHop, this::finish);
        }

        /**
         * Copy {@code copy} of a one-hop get: straight to the gateway of the copy's replica, once; if that fails, the
         * replica is forgotten and the copy is routed through the configured gateways instead, as are the copies
         * beyond the replicas the image knows. Every answer names the key's holders and so teaches the image.
         */
        private void launchOneHop(int copy, Consumer<Message> answer) {
            if (copy >= targets.size() || result.isDone()) {
                launch(copy - targets.size(), answer);
                return;
            }
            Contact target = targets.get(copy);
            long sentNanos = System.nanoTime();
            CompletableFuture<Message> call = runtime.submitDirect(Op.GET, asked, deadlineNanos, GetRacer::checked,
                    runtime.learnedGateway(target.gatewayAddress()));
            direct.add(call);
            call.whenComplete((reply, error) -> onLoop(() -> {
                if (error == null) {
                    image.answered(request.key(), target, reply, System.nanoTime() - sentNanos);
                    answer.accept(reply);
                } else if (Failures.unwrap(error) instanceof CancellationException) {
                    return;
                } else if (isRefusal(error)) {
                    // The request itself was refused: the replica is fine, and no other copy can do better.
                    failed(Failures.asRattan(error, Op.GET), answer);
                } else {
                    // Not the race's own cancel (it ended): the replica failed; route this copy instead.
                    image.failed(target);
                    launch(copy, answer);
                }
            }));
        }

        private void launch(int copy, Consumer<Message> answer) {
            if (result.isDone()) {
                answer.accept(new ErrorReply(Status.UNAVAILABLE, "get: the race was cancelled"));
                return;
            }
            // The mapper throws for a failed reply, so the call retries a transient one like any other call.
            CompletableFuture<Message> call = runtime.submit(Op.GET, asked, deadlineNanos, GetRacer::checked,
                    startGateway + copy);
            copies.add(call);
            call.whenComplete((reply, error) -> onLoop(() -> {
                if (error == null) {
                    if (options.oneHop()) {
                        image.routedAnswered(reply);
                    }
                    answer.accept(reply);
                    return;
                }
                failed(Failures.asRattan(error, Op.GET), answer);
            }));
        }

        private void failed(RattanException failure, Consumer<Message> answer) {
            lastFailure = failure;
            answer.accept(new ErrorReply(failure.status(), failure.getMessage()));
        }

        private void finish(GetRace.Result r) {
            cancelCopies();
            if (r.hedged()) {
                runtime.metrics().hedged();
            }
            if (r.winner() >= 0) {
                result.complete((GetReply) r.reply());
            } else {
                result.completeExceptionally(lastFailure != null ? lastFailure
                        : new RattanException(Status.INTERNAL, "get: every copy failed without a reason"));
            }
        }

        private void cancelCopies() {
            for (CompletableFuture<Message> c : copies) {
                c.cancel(false);
            }
        }

        private void onLoop(Runnable task) {
            if (loop.inEventLoop()) {
                task.run();
                return;
            }
            try {
                loop.execute(task);
            } catch (RejectedExecutionException e) {
                result.completeExceptionally(runtime.closedFailure());
            }
        }
    }

    /** A failure that is the answer to the request itself (BAD_REQUEST, TOO_LARGE): it ends the race, see GetRace. */
    private static boolean isRefusal(Throwable error) {
        Status s = Failures.asRattan(error, Op.GET).status();
        return s == Status.BAD_REQUEST || s == Status.TOO_LARGE;
    }

    /**
     * A get reply that answers the page: OK, NOT_FOUND (no live value, the same as an empty page), or a quorum get's
     * PARTIAL (flagged in the result; another copy would most likely meet the same unreachable replicas).
     */
    private static boolean good(Message m) {
        return m instanceof GetReply g && (g.status() == Status.OK || g.status() == Status.NOT_FOUND
                || g.status() == Status.PARTIAL);
    }

    /** The reply itself when it answers the page; else the failure it stands for, thrown for the call to handle. */
    private static Message checked(Message reply) {
        Replies.getPage(reply);
        return reply;
    }
}
