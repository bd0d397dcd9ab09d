package io.rattan.client;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.JdkSslContext;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.EventExecutor;
import io.rattan.api.Address;
import io.rattan.api.Status;
import io.rattan.core.codec.MessageCodec;
import io.rattan.core.msg.Message;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The machinery behind {@link RattanClient}: the event loops, one {@link Gateway} per address, the request-id
 * counter, the table of live calls and its bound. Thread-safe.
 */
final class ClientRuntime {

    private static final Logger log = LoggerFactory.getLogger(ClientRuntime.class);
    private static final long SHUTDOWN_TIMEOUT_SECONDS = 5;
    /** Threads of the default completion executor: callbacks are meant to be short, but may be many at once. */
    static final int COMPLETION_THREADS = Math.max(2, Runtime.getRuntime().availableProcessors());

    private final ClientConfig config;
    private final EventLoopGroup group;
    private final List<Gateway> gateways;
    // Gateways learned from the holders of one-hop answers, by address; opened on first use like the others.
    private final ConcurrentMap<Address, Gateway> learned = new ConcurrentHashMap<>();
    private final Bootstrap bootstrap;
    // TLS to every gateway, or null for none.
    private final SslContext tls;
    private final MessageCodec codec;
    private final Backoff backoff;
    private final ClientMetrics metrics;
    private final AtomicLong requestIds = new AtomicLong();
    private final AtomicInteger cursor;
    private final Set<Call<?>> calls = ConcurrentHashMap.newKeySet();
    // The client's own calls (ring loads): aborted at close, never counted against the caller's bound.
    private final Set<Call<?>> background = ConcurrentHashMap.newKeySet();
    private final AtomicInteger callCount = new AtomicInteger();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final EventLoop raceLoop;
    private final Executor completions;
    // The client's own completion pool, shut down by close; null when the caller gave an executor.
    private final ExecutorService ownCompletions;
    private final Set<Thread> ownCompletionThreads = ConcurrentHashMap.newKeySet();

    ClientRuntime(ClientConfig config) {
        this.config = config;
        this.backoff = new Backoff(config.backoffBase(), config.backoffMax());
        DefaultThreadFactory threads = new DefaultThreadFactory("rattan-client", true);
        boolean epoll = Epoll.isAvailable();
        this.group = epoll ? new EpollEventLoopGroup(config.eventLoopThreads(), threads)
                : new NioEventLoopGroup(config.eventLoopThreads(), threads);
        this.bootstrap = new Bootstrap()
                .group(group)
                .channel(epoll ? EpollSocketChannel.class : NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.SO_KEEPALIVE, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) config.connectTimeout().toMillis());
        this.codec = MessageCodec.speaking(config.protocolVersion());
        this.tls = config.tls() == null ? null : new JdkSslContext(config.tls(), true, ClientAuth.NONE);
        List<Gateway> gs = new ArrayList<>();
        for (Address a : config.gateways()) {
            gs.add(new Gateway(a, bootstrap, codec, config.backoffMax().toNanos(), tls));
        }
        this.gateways = List.copyOf(gs);
        // A random start spreads many clients over the gateways from their first request.
        this.cursor = new AtomicInteger(ThreadLocalRandom.current().nextInt(gateways.size()));
        this.metrics = new ClientMetrics(config.meterRegistry(), callCount::get);
        this.raceLoop = group.next();
        if (config.executor() != null) {
            this.completions = config.executor();
            this.ownCompletions = null;
        } else {
            this.ownCompletions = newCompletionPool(ownCompletionThreads);
            this.completions = ownCompletions;
        }
    }

    /**
     * The default completion executor: {@link #COMPLETION_THREADS} daemon threads named {@code rattan-callback-*}.
     * Not {@code ForkJoinPool.commonPool()}: on a 2-core machine it has one thread (on one core, a new thread per
     * task), it is shared with parallel streams and every library's async work, and a caller's blocking callback
     * there stalls them all; a pool of the client's own is also one it can drain and stop at close.
     */
    private static ExecutorService newCompletionPool(Set<Thread> threads) {
        AtomicInteger n = new AtomicInteger();
        ThreadFactory factory = r -> {
            Thread t = new Thread(() -> {
                try {
                    r.run();
                } finally {
                    threads.remove(Thread.currentThread());
                }
            }, "rattan-callback-" + n.incrementAndGet());
            t.setDaemon(true);
            threads.add(t);
            return t;
        };
        return new ThreadPoolExecutor(COMPLETION_THREADS, COMPLETION_THREADS, 0, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), factory);
    }

    /**
     * Runs {@code completion} (the completion of a future the caller holds) on the completion executor, so that the
     * caller's callbacks never run on an event loop. Should the executor refuse it (one of the caller's, shut down),
     * it runs here rather than leave the future pending forever.
     */
    void completeOff(Runnable completion) {
        try {
            completions.execute(completion);
        } catch (RejectedExecutionException e) {
            log.debug("the completion executor refused a completion; completing on {}", Thread.currentThread());
            completion.run();
        }
    }

    /** Whether {@code thread} is one of the client's event-loop threads; for tests. */
    boolean isEventLoopThread(Thread thread) {
        for (EventExecutor e : group) {
            if (e.inEventLoop(thread)) {
                return true;
            }
        }
        return false;
    }

    /** The one loop every get race runs on, so that the client's one hedge threshold needs no lock. */
    EventLoop raceLoop() {
        return raceLoop;
    }

    /** How many gateways the client knows. */
    int gatewayCount() {
        return gateways.size();
    }

    ClientConfig config() {
        return config;
    }

    /** When a call started at {@code startNanos} must be over: the total timeout later. */
    long deadline(long startNanos) {
        return startNanos + config.totalTimeout().toNanos();
    }

    Backoff backoff() {
        return backoff;
    }

    ClientMetrics metrics() {
        return metrics;
    }

    boolean isClosed() {
        return closed.get();
    }

    RattanException closedFailure() {
        return new RattanException(Status.UNAVAILABLE, "the client is closed");
    }

    long nextRequestId() {
        return requestIds.incrementAndGet();
    }

    /** The gateway a new call tries first: the next in round-robin order. */
    int nextStartIndex() {
        return Math.floorMod(cursor.getAndIncrement(), gateways.size());
    }

    /**
     * The gateway for a call's next attempt, from {@code start} on (cyclically): the first that is available (not
     * suspended, see {@link Gateway}) and not in {@code tried}, the gateways this call already tried; else the first
     * available one it tried (a live gateway that failed it once, with a timeout or an error, may not again); else,
     * when every gateway is suspended, the first it has not tried, else {@code start}. A suspended gateway whose probe
     * is due is probed on the way, in the background.
     */
    int chooseGateway(int start, BitSet tried) {
        int n = gateways.size();
        long now = System.nanoTime();
        int availableTried = -1;
        int untried = -1;
        for (int i = 0; i < n; i++) {
            int index = Math.floorMod(start + i, n);
            boolean available = gateways.get(index).isAvailable(now);
            boolean wasTried = tried.get(index);
            if (available && !wasTried) {
                return index;
            }
            if (available && availableTried < 0) {
                availableTried = index;
            } else if (!wasTried && untried < 0) {
                untried = index;
            }
        }
        if (availableTried >= 0) {
            return availableTried;
        }
        return untried >= 0 ? untried : Math.floorMod(start, n);
    }

    Gateway gateway(int index) {
        return gateways.get(index);
    }

    /**
     * The gateway at {@code address}, a replica's learned from a one-hop answer: a configured gateway if it is one,
     * else one of the learned gateways, made on first use. Its connection opens on first use too.
     */
    Gateway learnedGateway(Address address) {
        for (Gateway g : gateways) {
            if (g.address().equals(address)) {
                return g;
            }
        }
        return learned.computeIfAbsent(address, a -> new Gateway(a, bootstrap, codec, config.backoffMax().toNanos(), tls));
    }

    /** Closes and forgets the learned gateways whose address {@code keep} rejects: nodes the image no longer holds. */
    void retainLearned(Predicate<Address> keep) {
        learned.values().removeIf(g -> {
            if (keep.test(g.address())) {
                return false;
            }
            g.close();
            return true;
        });
    }

    /** How many learned gateways the client holds. */
    int learnedCount() {
        return learned.size();
    }

    /**
     * Starts a call with the given deadline (a {@link System#nanoTime} value). The returned future completes on an
     * event-loop thread, with the mapped reply or a {@link RattanException}.
     */
    <T> CompletableFuture<T> submit(Op op, Message request, long deadlineNanos, Call.ReplyMapper<T> mapper) {
        return submit(op, request, deadlineNanos, mapper, -1);
    }

    /**
     * As {@link #submit(Op, Message, long, Call.ReplyMapper)}, with the first attempt at gateway
     * {@code firstGateway} (taken modulo the number of gateways; negative: the next round-robin turn).
     */
    <T> CompletableFuture<T> submit(Op op, Message request, long deadlineNanos, Call.ReplyMapper<T> mapper,
                                    int firstGateway) {
        int first = firstGateway < 0 ? -1 : Math.floorMod(firstGateway, gateways.size());
        return start(new Call<>(this, op, request, mapper, group.next(), deadlineNanos, first, null));
    }

    /**
     * As {@link #submit(Op, Message, long, Call.ReplyMapper)}, with one attempt only, at {@code gateway} (a replica's
     * gateway, for a one-hop get): the caller falls back on its own if it fails.
     */
    <T> CompletableFuture<T> submitDirect(Op op, Message request, long deadlineNanos, Call.ReplyMapper<T> mapper,
                                          Gateway gateway) {
        return start(new Call<>(this, op, request, mapper, group.next(), deadlineNanos, -1, gateway));
    }

    /**
     * As {@link #submit(Op, Message, long, Call.ReplyMapper, int)}, for the client's own background work (loading the
     * ring): not counted in {@link #callsInFlight()} nor against {@code maxRequestsInFlight}, which bound the
     * caller's calls; aborted by {@link #close()} all the same.
     */
    <T> CompletableFuture<T> submitBackground(Op op, Message request, long deadlineNanos, Call.ReplyMapper<T> mapper,
                                              int firstGateway) {
        if (closed.get()) {
            return CompletableFuture.failedFuture(closedFailure());
        }
        Call<T> call = new Call<>(this, op, request, mapper, group.next(), deadlineNanos,
                Math.floorMod(firstGateway, gateways.size()), null);
        return enlist(call, background);
    }

    private <T> CompletableFuture<T> start(Call<T> call) {
        if (closed.get()) {
            return CompletableFuture.failedFuture(closedFailure());
        }
        int max = config.requestsInFlightMax();
        if (callCount.incrementAndGet() > max) {
            callCount.decrementAndGet();
            return CompletableFuture.failedFuture(new RattanException(Status.UNAVAILABLE, "too many requests in "
                    + "flight: the client admits " + max + " at once (maxRequestsInFlight); wait for some to "
                    + "complete"));
        }
        return enlist(call, calls);
    }

    /** Adds {@code call} to {@code table} and starts it, or aborts it if the client closed meanwhile. */
    private <T> CompletableFuture<T> enlist(Call<T> call, Collection<Call<?>> table) {
        table.add(call);
        if (closed.get()) {
            // close() may have swept the table before the add above.
            call.abort(closedFailure());
            release(call);
            return call.result();
        }
        call.start();
        return call.result();
    }

    /** Forgets a completed call; idempotent. */
    void release(Call<?> call) {
        if (calls.remove(call)) {
            callCount.decrementAndGet();
        } else {
            background.remove(call);
        }
    }

    /** Calls in flight or waiting to retry. */
    int callsInFlight() {
        return callCount.get();
    }

    /**
     * Fails every live call, closes every connection and stops the event loops (without a quiet period). Waits for
     * the loops to stop, unless called from one of them.
     */
    void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        RattanException failure = closedFailure();
        for (Call<?> call : calls) {
            call.abort(failure);
        }
        for (Call<?> call : background) {
            call.abort(failure);
        }
        for (Gateway g : gateways) {
            g.close();
        }
        for (Gateway g : learned.values()) {
            g.close();
        }
        metrics.close();
        io.netty.util.concurrent.Future<?> terminated =
                group.shutdownGracefully(0, SHUTDOWN_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        boolean fromCallback = ownCompletionThreads.contains(Thread.currentThread());
        if (onOwnLoop()) {
            shutDownCompletions(false);
            return;
        }
        if (!terminated.awaitUninterruptibly(2 * SHUTDOWN_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            log.warn("the client's event loops did not stop within {} s", 2 * SHUTDOWN_TIMEOUT_SECONDS);
        }
        shutDownCompletions(!fromCallback);
    }

    /**
     * Stops the client's own completion pool once it has run what is queued (the failures of the calls close
     * aborted among them), waiting for that when {@code await}; a caller's executor is left alone.
     */
    private void shutDownCompletions(boolean await) {
        if (ownCompletions == null) {
            return;
        }
        ownCompletions.shutdown();
        if (!await) {
            return;
        }
        try {
            if (!ownCompletions.awaitTermination(SHUTDOWN_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                log.warn("the client's callbacks did not finish within {} s of close", SHUTDOWN_TIMEOUT_SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private boolean onOwnLoop() {
        for (EventExecutor e : group) {
            if (e.inEventLoop()) {
                return true;
            }
        }
        return false;
    }
}
