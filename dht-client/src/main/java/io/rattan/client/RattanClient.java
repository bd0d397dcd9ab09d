package io.rattan.client;

import io.micrometer.core.instrument.MeterRegistry;
import io.rattan.core.client.GetOptions;
import io.rattan.core.client.HedgeThreshold;
import io.rattan.core.codec.MessageCodec;
import io.rattan.core.id.Id;
import io.rattan.core.msg.Cost;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.Messages.ClientGet;
import io.rattan.core.msg.Messages.ClientPut;
import io.rattan.core.msg.Messages.ClientRemove;
import io.rattan.core.msg.Messages.ErrorReply;
import io.rattan.core.msg.Messages.GetReply;
import io.rattan.core.msg.Messages.PutReply;
import io.rattan.core.msg.Messages.RemoveReply;
import io.rattan.core.msg.Messages.ValueEntry;
import io.rattan.core.msg.RoutingMode;
import io.rattan.core.msg.SecretBinding;
import io.rattan.core.msg.Status;
import io.rattan.core.net.Address;
import io.rattan.core.util.Bytes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.function.Function;

/**
 * A client of a Rattan DHT: puts, gets and removes values through one or more gateways over the binary RPC.
 *
 * <pre>{@code
 * try (RattanClient client = RattanClient.builder().gateway("10.0.0.1:4001").gateway("10.0.0.2:4001").build()) {
 *     Id key = RattanClient.key("greeting");
 *     client.putSync(key, "hello".getBytes(UTF_8), Duration.ofHours(1));
 *     for (GetResult.Value v : client.getSync(key).values()) {
 *         System.out.println(v.utf8());
 *     }
 * }
 * }</pre>
 *
 * <h2>Calls, attempts and failures</h2>
 * Every call is sent to one gateway at a time over a long-lived TCP connection (one per gateway, opened on first
 * use, reopened after it closes, shared by all calls: requests are multiplexed by request id). Calls take turns
 * round-robin over the gateways, from a random start. When an attempt fails with a transient status
 * ({@link Status#UNAVAILABLE}, {@link Status#TIMEOUT}, {@link Status#INTERNAL}), cannot connect, loses its
 * connection, or gets no reply within the attempt timeout, the call waits a random backoff and retries on the next
 * gateway (one the call has not tried yet, if any is available), up to {@link Builder#maxRetries(int) maxRetries}
 * times and never beyond the {@link Builder#totalTimeout(Duration) total timeout}. A gateway that refused a
 * connection, or whose connection was lost, is suspended: calls avoid it as long as another is available, until a
 * connection to it opens again. The client probes it in the background, by opening a connection, at once after a
 * lost connection and after the backoff cap after a refusal, doubling the wait after each refusal up to 32 times the
 * cap (jittered), so that a killed gateway costs one probe now and then, not a retry of every call. A connection on
 * which nothing at all arrived during an attempt that timed out is closed, to be reopened on next use; the other
 * attempts pending on it fail with it, and go on to another gateway without spending a retry (once per gateway). When a call
 * fails, its message names each attempt's gateway and status. Final answers ({@link Status#BAD_REQUEST},
 * {@link Status#TOO_LARGE}, {@link Status#FORBIDDEN}) are never retried. Retrying a put is safe: a value's identity
 * is its hash, so storing it twice stores it once.
 *
 * <p>A failed future completes exceptionally with a {@link RattanException} (so {@code join()} throws it wrapped in
 * a {@link CompletionException}, {@code get()} in an {@link ExecutionException}); the blocking {@code *Sync}
 * methods throw it directly. Cancelling a returned future stops the call's retries.
 *
 * <h2>Threads</h2>
 * The client is thread-safe: any thread may call any method, concurrently. Its sockets, timers and retries run on
 * its Netty event-loop threads ({@code rattan-client-*}), but returned futures never complete there: they complete
 * on the client's completion executor, so the callbacks attached to them ({@code thenApply}, {@code thenRun}, ...)
 * run off the I/O threads and cannot stall the client's network work. The executor is the builder's
 * {@link Builder#executor(Executor) executor}, by default a pool of the client's own of max(2, available
 * processors) daemon threads named {@code rattan-callback-*}, which {@link #close()} drains and stops. A callback
 * may block (a {@code *Sync} call included), but it holds one of those threads while it does: if every one is
 * blocked, no future completes until one returns. A future completed before it is returned (a call refused at once)
 * runs callbacks on the thread that attaches them, as any completed {@link CompletableFuture} does.
 *
 * <h2>Metrics</h2>
 * With a {@link Builder#meterRegistry(MeterRegistry) registry}, every call is timed, all attempts included, by the
 * timer {@code rattan.client.requests} tagged {@code op} ({@code put}, {@code get}, {@code remove}) and
 * {@code outcome} ({@code success}; {@code not_found} for a remove that found nothing; otherwise the lower-case
 * status of the failure, or {@code cancelled}). A multi-page {@link #get(Id)} counts as one call. The counter
 * {@code rattan.client.retries} (tag {@code op}) counts retries, and the gauge {@code rattan.client.requests.inflight}
 * the calls in flight. The counter {@code rattan.client.get.hedges} counts hedge copies sent by
 * {@link #get(Id, GetOptions) hedged gets}.
 */
public final class RattanClient implements AutoCloseable {

    /** The most pages {@link #get(Id)} fetches before it returns what it has. */
    public static final int GET_PAGES_MAX = 64;
    /** Values asked for per page by {@link #get(Id)}; gateways cap it by their own page bounds. */
    public static final int GET_PAGE_VALUES = MessageCodec.LIST_COUNT_MAX;
    /** The largest value the wire protocol carries; gateways usually accept less (1 KiB by default). */
    public static final int VALUE_BYTES_MAX = MessageCodec.VALUE_BYTES_MAX;
    /** The largest removal secret the wire protocol carries. */
    public static final int SECRET_BYTES_MAX = MessageCodec.SECRET_BYTES_MAX;

    private final ClientRuntime runtime;
    private final GetRacer racer;

    private RattanClient(ClientConfig config) {
        this.runtime = new ClientRuntime(config);
        this.racer = new GetRacer(runtime);
    }

    /** A builder with every setting at its default; only the gateways must be given. */
    public static Builder builder() {
        return new Builder();
    }

    /** The key for a name: SHA-1 of its UTF-8 bytes, the same key as {@code name:<text>} in the HTTP API. */
    public static Id key(String name) {
        return Id.ofName(Objects.requireNonNull(name, "name"));
    }

    /** SHA-256 of a value: the hash {@link #remove} names a value by. */
    public static Bytes valueHash(byte[] value) {
        return Bytes.wrap(Bytes.sha256(Objects.requireNonNull(value, "value")));
    }

    // ---- put ----

    /**
     * Stores {@code value} under {@code key} for {@code ttl}, without a secret: nobody can remove it before it
     * expires. Same as {@code put(key, value, ttl, null)}.
     *
     * @see #put(Id, byte[], Duration, byte[])
     */
    public CompletableFuture<PutResult> put(Id key, byte[] value, Duration ttl) {
        return put(key, value, ttl, null);
    }

    /**
     * Stores {@code value} under {@code key} for {@code ttl}. A key holds a set of values: putting a different
     * value adds it, putting the same value again only refreshes it. With a {@code secret}, whoever presents the
     * same secret can remove the value. The secret does not leave this process: the put carries only its binding to
     * this value, SHA-256(secret ‖ key ‖ SHA-256(value)) ({@link SecretBinding}); only {@link #remove} sends the
     * secret itself.
     *
     * @param key    the key
     * @param value  the value's bytes (copied); at most {@link #VALUE_BYTES_MAX}, and at most what the gateway allows
     * @param ttl    how long the value lives; rounded up to whole seconds; gateways cap it at their maximum
     * @param secret the removal secret, or null for a value that cannot be removed; at most
     *               {@link #SECRET_BYTES_MAX} bytes, since {@link #remove} must send it
     * @return completes with the value's hash and replica count, or with a {@link RattanException}
     *         ({@link Status#TOO_LARGE} for a value above the limit)
     * @throws IllegalArgumentException for a null argument (other than the secret), a non-positive ttl, or an
     *                                  empty or oversized secret
     */
    public CompletableFuture<PutResult> put(Id key, byte[] value, Duration ttl, byte[] secret) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        int ttlSeconds = ttlSeconds(ttl);
        if (secret != null) {
            checkSecret(secret);
        }
        long start = System.nanoTime();
        if (value.length > VALUE_BYTES_MAX) {
            RattanException tooLarge = new RattanException(Status.TOO_LARGE, "put: the value has " + value.length
                    + " bytes; the wire protocol carries at most " + VALUE_BYTES_MAX);
            return instrumented(Op.PUT, start, CompletableFuture.failedFuture(tooLarge), r -> ClientMetrics.SUCCESS);
        }
        Bytes v = Bytes.of(value);
        Bytes hash = v.sha256();
        Bytes binding = secret == null ? Bytes.EMPTY : SecretBinding.of(Bytes.of(secret), key, hash);
        ClientPut request = new ClientPut(key, v, ttlSeconds, binding);
        return instrumented(Op.PUT, start,
                runtime.submit(Op.PUT, request, deadline(start), reply -> mapPut(reply, hash)),
                r -> ClientMetrics.SUCCESS);
    }

    /** Blocking {@link #put(Id, byte[], Duration)}; throws {@link RattanException} on failure. */
    public PutResult putSync(Id key, byte[] value, Duration ttl) {
        return await(put(key, value, ttl));
    }

    /** Blocking {@link #put(Id, byte[], Duration, byte[])}; throws {@link RattanException} on failure. */
    public PutResult putSync(Id key, byte[] value, Duration ttl, byte[] secret) {
        return await(put(key, value, ttl, secret));
    }

    // ---- get ----

    /**
     * Fetches every live value under {@code key}, following placemarks page after page, at most
     * {@link #GET_PAGES_MAX} pages; the total timeout bounds all pages together. A key with no live value gives an
     * empty result. Should the bound be reached with values left, the result holds the pages fetched and a
     * non-empty {@link GetResult#placemark()} to continue from with {@link #getPage}
     * ({@link GetResult#complete()} is then false). Each page is performed as {@link GetOptions#defaults()} say:
     * delay-aware, through one gateway, hedged through the next (see {@link #get(Id, GetOptions)}).
     *
     * @return completes with the values, or with a {@link RattanException}
     */
    public CompletableFuture<GetResult> get(Id key) {
        return get(key, GetOptions.defaults());
    }

    /**
     * As {@link #get(Id)}, with each page routed by {@code routing} ({@link RoutingMode#GREEDY},
     * {@link RoutingMode#DELAY_AWARE}, the default, or {@link RoutingMode#ITERATIVE}): the default options
     * otherwise, {@code GetOptions.defaults().withRouting(routing)}, hedged too.
     */
    public CompletableFuture<GetResult> get(Id key, RoutingMode routing) {
        Objects.requireNonNull(routing, "routing");
        return get(key, GetOptions.defaults().withRouting(routing));
    }

    /**
     * As {@link #get(Id)}, each page performed as {@code options} say: routed by {@link GetOptions#routing()}
     * (iterative with {@link GetOptions#parallelism()} questions in flight at the gateway), and raced through
     * {@link GetOptions#gateways()} of the configured gateways at once, with one more copy through the next gateway
     * when {@link GetOptions#hedge()} and no good answer came within the client's hedge threshold (a quantile of
     * its recent gets' latencies, see {@link HedgeThreshold}). The first good answer wins; the other copies are
     * cancelled. Each copy is retried on further gateways like any call, within the total timeout; the get fails
     * only when every copy failed, with the last failure. With more copies than configured gateways, copies share
     * gateways. {@link GetOptions#defaults()} is the recommended mode: delay-aware, one gateway, hedged.
     *
     * <p>The result's {@link GetResult#cost()} is what the winning copy of each page reports.
     *
     * <p>With {@link GetOptions#oneHop()} the client routes the get itself, by its own image of the ring: it sends
     * each copy straight to the binary gateway of one of the key's replicas, so that the replica answers at once
     * (0 hops), the replica measured fastest first, the next copies and the hedges to the next replicas (a hedge goes
     * after 1.2 times the round trip measured to the replica before it, plus 5 ms). The image starts empty and
     * learns only from answers: every one-hop get asks the answering node to name the key's replicas and their
     * gateways ({@code wantHolders}), which add to and correct the image. Until it knows a key's replicas, and for a
     * copy whose replica fails (it is then forgotten), the get goes through the configured gateways as usual, so a
     * one-hop get never fails where a routed one would succeed. {@link GetOptions#gateways()} copies go to that many
     * replicas at once. The image is bounded ({@value ClientRingImage#NODES_MAX} nodes, one connection each at
     * most). This client never sets the wire's {@code oneHop} flag, which asks a gateway to use <em>its</em> image
     * (HTTP's {@code onehop=true}).
     *
     * <p>With {@link GetOptions#withQuorum(int)} each page is a quorum get: the first replica of the key it reaches
     * reads R replicas (itself included; R = ⌊k/2⌋+1 of the gateway's k when 0 is given), answers with their merge
     * (a removed value stays removed, an expired one is left out) and sends each replica that lacked a record the
     * merged one (read repair). A page that reached fewer than R replicas is still answered, with the merge of those
     * it reached, and {@link GetResult#partial()} is then true: check it when the read must have seen R replicas. A
     * quorum get cannot be iterative ({@link GetOptions} refuses it).
     *
     * @return completes with the values, or with a {@link RattanException}
     */
    public CompletableFuture<GetResult> get(Id key, GetOptions options) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(options, "options");
        long start = System.nanoTime();
        Pager pager = new Pager(key, options, deadline(start));
        pager.fetch(Bytes.EMPTY);
        return instrumented(Op.GET, start, pager.result, r -> ClientMetrics.SUCCESS);
    }

    /**
     * Fetches one page of the live values under {@code key}: at most {@code maxValues} values (the gateway may
     * return fewer) whose hashes follow {@code placemark}.
     *
     * @param maxValues most values wanted, 1..{@link #GET_PAGE_VALUES}
     * @param placemark {@link Bytes#EMPTY} (or null) for the first page, else the placemark of the previous page
     * @return completes with the page, whose {@link GetResult#placemark()} is empty when it was the last
     * @throws IllegalArgumentException for a null key, a maxValues out of range, or an over-long placemark
     */
    public CompletableFuture<GetResult> getPage(Id key, int maxValues, Bytes placemark) {
        return getPage(key, RoutingMode.DEFAULT, maxValues, placemark);
    }

    /** As {@link #getPage(Id, int, Bytes)}, routed by {@code routing}. */
    public CompletableFuture<GetResult> getPage(Id key, RoutingMode routing, int maxValues, Bytes placemark) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(routing, "routing");
        if (maxValues < 1 || maxValues > GET_PAGE_VALUES) {
            throw new IllegalArgumentException("maxValues must be 1.." + GET_PAGE_VALUES + ", got " + maxValues);
        }
        Bytes mark = placemark == null ? Bytes.EMPTY : placemark;
        if (mark.length() > MessageCodec.HASH_BYTES_MAX) {
            throw new IllegalArgumentException("a placemark has at most " + MessageCodec.HASH_BYTES_MAX + " bytes");
        }
        long start = System.nanoTime();
        return instrumented(Op.GET, start, runtime.submit(Op.GET, new ClientGet(key, routing, maxValues, mark),
                deadline(start), RattanClient::mapGetPage), r -> ClientMetrics.SUCCESS);
    }

    /** Blocking {@link #get(Id)}; throws {@link RattanException} on failure. */
    public GetResult getSync(Id key) {
        return await(get(key));
    }

    /** Blocking {@link #get(Id, RoutingMode)}; throws {@link RattanException} on failure. */
    public GetResult getSync(Id key, RoutingMode routing) {
        return await(get(key, routing));
    }

    /** Blocking {@link #get(Id, GetOptions)}; throws {@link RattanException} on failure. */
    public GetResult getSync(Id key, GetOptions options) {
        return await(get(key, options));
    }

    // ---- remove ----

    /**
     * Removes the value with hash {@code valueHash} from {@code key}, presenting {@code secret}; the replicas keep
     * a tombstone for {@code ttl} (give at least the value's remaining TTL, so that a replica that missed the
     * remove cannot bring the value back).
     *
     * @param valueHash SHA-256 of the value ({@link PutResult#valueHash()}, {@link GetResult.Value#valueHash()},
     *                  {@link #valueHash(byte[])})
     * @param secret    the secret the value was put with
     * @return completes with true when the value was removed, false when no replica held it; fails with a
     *         {@link RattanException} whose status is {@link Status#FORBIDDEN} when the secret is wrong (or the
     *         value was put without one), and never retries that
     * @throws IllegalArgumentException for a null argument, a non-positive ttl, or an empty or oversized secret or
     *                                  hash
     */
    public CompletableFuture<Boolean> remove(Id key, Bytes valueHash, byte[] secret, Duration ttl) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(valueHash, "valueHash");
        Objects.requireNonNull(secret, "secret");
        if (valueHash.isEmpty() || valueHash.length() > MessageCodec.HASH_BYTES_MAX) {
            throw new IllegalArgumentException("a value hash has 1.." + MessageCodec.HASH_BYTES_MAX + " bytes, got "
                    + valueHash.length());
        }
        checkSecret(secret);
        int ttlSeconds = ttlSeconds(ttl);
        long start = System.nanoTime();
        ClientRemove request = new ClientRemove(key, valueHash, Bytes.of(secret), ttlSeconds);
        return instrumented(Op.REMOVE, start,
                runtime.submit(Op.REMOVE, request, deadline(start), RattanClient::mapRemove),
                removed -> removed ? ClientMetrics.SUCCESS : "not_found");
    }

    /** Blocking {@link #remove}; throws {@link RattanException} on failure. */
    public boolean removeSync(Id key, Bytes valueHash, byte[] secret, Duration ttl) {
        return await(remove(key, valueHash, secret, ttl));
    }

    // ---- lifecycle ----

    /**
     * Fails every call still in flight or waiting to retry with a {@link RattanException}
     * ({@link Status#UNAVAILABLE}), closes the connections and stops the event loops, waiting (a few seconds at
     * most) for them to stop. Calls made afterwards fail at once. Idempotent.
     */
    @Override
    public void close() {
        runtime.close();
    }

    /** Calls in flight or waiting to retry; for monitoring. */
    public int requestsInFlight() {
        return runtime.callsInFlight();
    }

    /**
     * Attempts that a gateway refused as over this client's request rate ({@code RATE_LIMITED}) since the client was
     * built; each waited the time the gateway asked for before the next attempt. Also the meter
     * {@code rattan.client.rate.limited} when a registry was given.
     */
    public long rateLimitedAttempts() {
        return runtime.metrics().rateLimitedCount();
    }

    // package-private, for tests
    ClientRuntime runtime() {
        return runtime;
    }

    // ---- reply mapping ----

    private static PutResult mapPut(Message reply, Bytes valueHash) {
        switch (reply.type()) {
            case PUT_REPLY: {
                PutReply r = (PutReply) reply;
                if (r.status() == Status.OK) {
                    return new PutResult(valueHash, r.replicas());
                }
                throw failure(Op.PUT, r.status(), r.detail());
            }
            case ERROR_REPLY:
                throw failure(Op.PUT, (ErrorReply) reply);
            default:
                throw unexpected(Op.PUT, reply);
        }
    }

    static GetResult mapGetPage(Message reply) {
        switch (reply.type()) {
            case GET_REPLY: {
                GetReply r = (GetReply) reply;
                // A quorum get that reached fewer than R replicas still answers, flagged partial.
                if (r.status() == Status.OK || r.status() == Status.PARTIAL) {
                    List<GetResult.Value> values = new ArrayList<>(r.values().size());
                    for (ValueEntry e : r.values()) {
                        values.add(new GetResult.Value(e.value(), e.value().sha256(),
                                Duration.ofMillis(e.ttlRemainingMillis())));
                    }
                    return new GetResult(values, r.hops(), 1, r.placemark(), r.cost(), r.status() == Status.PARTIAL);
                }
                if (r.status() == Status.NOT_FOUND) {
                    // No live value under the key: the same answer as an empty page.
                    return new GetResult(List.of(), r.hops(), 1, Bytes.EMPTY, r.cost());
                }
                throw failure(Op.GET, r.status(), r.detail());
            }
            case ERROR_REPLY:
                throw failure(Op.GET, (ErrorReply) reply);
            default:
                throw unexpected(Op.GET, reply);
        }
    }

    private static Boolean mapRemove(Message reply) {
        Status status;
        String detail;
        switch (reply.type()) {
            case REMOVE_REPLY:
                status = ((RemoveReply) reply).status();
                detail = ((RemoveReply) reply).detail();
                break;
            case ERROR_REPLY:
                ErrorReply error = (ErrorReply) reply;
                if (error.status() == Status.NOT_FOUND) {
                    return Boolean.FALSE;
                }
                throw failure(Op.REMOVE, error);
            default:
                throw unexpected(Op.REMOVE, reply);
        }
        if (status == Status.OK) {
            return Boolean.TRUE;
        }
        if (status == Status.NOT_FOUND) {
            return Boolean.FALSE;
        }
        throw failure(Op.REMOVE, status, detail);
    }

    private static RattanException failure(Op op, ErrorReply error) {
        RattanException f = failure(op, error.status(), error.detail());
        if (error.retryAfterMillis() <= 0 || f.status() != error.status()) {
            return f;
        }
        return new RattanException(f.status(), f.getMessage(), null, error.retryAfterMillis());
    }

    private static RattanException failure(Op op, Status status, String detail) {
        String suffix = detail == null || detail.isEmpty() ? "" : ": " + detail;
        if (status == Status.OK) {
            // An error reply that claims success is a broken gateway; retry elsewhere.
            return new RattanException(Status.INTERNAL, op.tag() + ": the gateway sent an error reply with status OK"
                    + suffix);
        }
        return new RattanException(status, op.tag() + " failed: " + status + suffix);
    }

    private static RattanException unexpected(Op op, Message reply) {
        return new RattanException(Status.INTERNAL, op.tag() + ": the gateway answered with " + reply.type());
    }

    // ---- helpers ----

    /** Follows placemarks for {@link #get(Id)}; each page is a call of its own, all under one deadline. */
    private final class Pager {
        private final Id key;
        private final long deadlineNanos;
        private final CompletableFuture<GetResult> result = new CompletableFuture<>();
        // Pages complete one after another, each on the loop after the previous; the chain publishes these fields.
        private final Map<Bytes, GetResult.Value> values = new LinkedHashMap<>();
        private final GetOptions options;
        private int hops;
        private int pages;
        private Cost cost = Cost.ZERO;
        private boolean partial;
        private volatile CompletableFuture<GetResult> page;

        Pager(Id key, GetOptions options, long deadlineNanos) {
            this.key = key;
            this.options = options;
            this.deadlineNanos = deadlineNanos;
            result.whenComplete((r, e) -> {
                CompletableFuture<GetResult> p = page;
                if (result.isCancelled() && p != null) {
                    p.cancel(false);
                }
            });
        }

        void fetch(Bytes placemark) {
            // A one-hop get asks every answer for the key's holders, which teach the client's image; the gateway's
            // own one-hop routing (the wire's oneHop flag) is not asked for: the client goes to a replica itself.
            ClientGet request = new ClientGet(key, options.routing(), GET_PAGE_VALUES, placemark,
                    options.parallelism(), options.oneHop(), false, options.consistency(), options.readReplicas());
            CompletableFuture<GetResult> p;
            if (options.maxCopies() == 1 && !options.oneHop()) {
                // One copy needs no race: a plain call.
                p = runtime.submit(Op.GET, request, deadlineNanos, RattanClient::mapGetPage);
            } else {
                CompletableFuture<GetReply> raced = racer.race(request, options, deadlineNanos);
                p = raced.thenApply(RattanClient::mapGetPage);
                p.whenComplete((r, e) -> {
                    if (e instanceof CancellationException) {
                        raced.cancel(false);
                    }
                });
            }
            page = p;
            if (result.isDone()) {
                p.cancel(false);
                return;
            }
            p.whenComplete((r, e) -> {
                if (e != null) {
                    result.completeExceptionally(asRattan(e, Op.GET));
                } else {
                    onPage(placemark, r);
                }
            });
        }

        private void onPage(Bytes asked, GetResult r) {
            pages++;
            hops += r.hops();
            cost = cost.plus(r.cost());
            partial |= r.partial();
            for (GetResult.Value v : r.values()) {
                values.putIfAbsent(v.valueHash(), v);
            }
            Bytes next = r.placemark();
            if (next.isEmpty() || pages >= GET_PAGES_MAX) {
                result.complete(new GetResult(new ArrayList<>(values.values()), hops, pages, next, cost, partial));
            } else if (next.equals(asked)) {
                result.completeExceptionally(new RattanException(Status.INTERNAL,
                        "get: the gateway returned the placemark it was given; paging would never end"));
            } else {
                fetch(next);
            }
        }
    }

    /**
     * Wraps a call's future: records the call's timer before the caller sees the outcome, completes the caller's
     * future on the completion executor (never on an event loop), passes on a caller's cancel, and makes every
     * failure a {@link RattanException}.
     */
    private <T> CompletableFuture<T> instrumented(Op op, long startNanos, CompletableFuture<T> inner,
                                                  Function<T, String> outcomeOf) {
        CompletableFuture<T> outer = new CompletableFuture<>();
        inner.whenComplete((value, error) -> {
            long nanos = System.nanoTime() - startNanos;
            if (error == null) {
                runtime.metrics().record(op, outcomeOf.apply(value), nanos);
                runtime.completeOff(() -> outer.complete(value));
                return;
            }
            Throwable cause = unwrap(error);
            if (cause instanceof CancellationException) {
                runtime.metrics().record(op, ClientMetrics.CANCELLED, nanos);
                runtime.completeOff(() -> outer.cancel(false));
                return;
            }
            RattanException failure = asRattan(cause, op);
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

    private long deadline(long startNanos) {
        return startNanos + runtime.config().totalTimeout().toNanos();
    }

    static Throwable unwrap(Throwable t) {
        Throwable c = t;
        while ((c instanceof CompletionException || c instanceof ExecutionException) && c.getCause() != null) {
            c = c.getCause();
        }
        return c;
    }

    static RattanException asRattan(Throwable t, Op op) {
        Throwable c = unwrap(t);
        if (c instanceof RattanException) {
            return (RattanException) c;
        }
        return new RattanException(Status.INTERNAL, op.tag() + " failed unexpectedly: " + c, c);
    }

    private static <T> T await(CompletableFuture<T> future) {
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

    private static int ttlSeconds(Duration ttl) {
        Objects.requireNonNull(ttl, "ttl");
        if (ttl.isNegative() || ttl.isZero()) {
            throw new IllegalArgumentException("ttl must be positive, got " + ttl);
        }
        long seconds = ttl.getSeconds() + (ttl.getNano() > 0 ? 1 : 0);
        if (seconds > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("ttl must be at most " + Integer.MAX_VALUE + " s, got " + ttl);
        }
        return (int) seconds;
    }

    private static void checkSecret(byte[] secret) {
        if (secret.length == 0) {
            throw new IllegalArgumentException(
                    "a secret must not be empty (pass null to put a value nobody can remove)");
        }
        if (secret.length > SECRET_BYTES_MAX) {
            throw new IllegalArgumentException("a secret has at most " + SECRET_BYTES_MAX + " bytes, got "
                    + secret.length);
        }
    }

    /**
     * Settings for a {@link RattanClient}; every one but the gateways has a default. Not thread-safe; build on one
     * thread. Setters reject nonsensical values at once with {@link IllegalArgumentException}; {@link #build()}
     * checks the whole with {@link IllegalStateException} (no gateway) or {@link IllegalArgumentException}.
     */
    public static final class Builder {

        private final List<Address> gateways = new ArrayList<>();
        private Duration attemptTimeout = Duration.ofSeconds(2);
        private Duration totalTimeout = Duration.ofSeconds(10);
        private int maxRetries = 3;
        private Duration backoffBase = Duration.ofMillis(50);
        private Duration backoffMax = Duration.ofSeconds(1);
        private Duration connectTimeout = Duration.ofSeconds(2);
        private MeterRegistry meterRegistry;
        private Executor executor;
        private int eventLoopThreads = 1;
        private int maxRequestsInFlight = 65_536;

        private Builder() {
        }

        /**
         * Adds a gateway, as {@code host:port} ({@code [v6addr]:port} for an IPv6 literal). At least one gateway is
         * required; a repeated one is ignored.
         *
         * @throws IllegalArgumentException if {@code hostPort} does not parse
         */
        public Builder gateway(String hostPort) {
            return gateway(Address.parse(hostPort));
        }

        /** Adds a gateway; a repeated one is ignored. */
        public Builder gateway(Address address) {
            Objects.requireNonNull(address, "address");
            if (!gateways.contains(address)) {
                gateways.add(address);
            }
            return this;
        }

        /** Adds gateways in order; repeated ones are ignored. */
        public Builder gateways(List<Address> addresses) {
            Objects.requireNonNull(addresses, "addresses");
            for (Address a : addresses) {
                gateway(a);
            }
            return this;
        }

        /**
         * How long one attempt (connecting if needed, sending, waiting for the reply) may take before the call moves
         * on to the next gateway. Default 2 s. An attempt never outlives the total timeout.
         */
        public Builder attemptTimeout(Duration timeout) {
            this.attemptTimeout = ClientConfig.requirePositive(timeout, "attemptTimeout");
            return this;
        }

        /**
         * How long a whole call may take, every attempt and backoff included (for {@link RattanClient#get(Id)},
         * every page). Default 10 s. When it passes, the call fails with {@link Status#TIMEOUT}.
         */
        public Builder totalTimeout(Duration timeout) {
            this.totalTimeout = ClientConfig.requirePositive(timeout, "totalTimeout");
            return this;
        }

        /** How many times a call is retried after its first attempt fails transiently; 0 disables. Default 3. */
        public Builder maxRetries(int retries) {
            if (retries < 0) {
                throw new IllegalArgumentException("maxRetries must be >= 0, got " + retries);
            }
            this.maxRetries = retries;
            return this;
        }

        /**
         * Backoff between attempts: before retry n the call waits a uniformly random time in
         * [0, min(max, base * 2^(n-1))] (capped exponential backoff with full jitter). {@code max} is also how
         * long a gateway that refused a connection is avoided before it is probed again (doubling after each refused
         * probe, up to 32 times {@code max}). Defaults 50 ms and 1 s.
         *
         * @throws IllegalArgumentException unless {@code 0 < base <= max}
         */
        public Builder backoff(Duration base, Duration max) {
            ClientConfig.requirePositive(base, "backoff base");
            ClientConfig.requirePositive(max, "backoff max");
            if (base.compareTo(max) > 0) {
                throw new IllegalArgumentException("backoff base " + base + " exceeds backoff max " + max);
            }
            this.backoffBase = base;
            this.backoffMax = max;
            return this;
        }

        /** How long opening a TCP connection to a gateway may take (whole milliseconds, at least 1). Default 2 s. */
        public Builder connectTimeout(Duration timeout) {
            ClientConfig.requirePositive(timeout, "connectTimeout");
            if (timeout.toMillis() < 1 || timeout.toMillis() > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("connectTimeout must be 1 ms .. " + Integer.MAX_VALUE + " ms, got "
                        + timeout);
            }
            this.connectTimeout = timeout;
            return this;
        }

        /** Where to record the client's meters (see {@link RattanClient}); default none. */
        public Builder meterRegistry(MeterRegistry registry) {
            this.meterRegistry = Objects.requireNonNull(registry, "registry");
            return this;
        }

        /**
         * Where returned futures complete, and so where callbacks attached to them run (see {@link RattanClient}'s
         * threads). The client never shuts down an executor given here. Default: a pool of the client's own of
         * max(2, available processors) daemon threads, stopped by {@link RattanClient#close()}. Never an event loop
         * of the client's: a direct executor ({@code Runnable::run}) would run callbacks on the I/O threads again.
         */
        public Builder executor(Executor executor) {
            this.executor = Objects.requireNonNull(executor, "executor");
            return this;
        }

        /** Netty event-loop threads (daemon threads named {@code rattan-client-*}). Default 1. */
        public Builder eventLoopThreads(int threads) {
            if (threads < 1) {
                throw new IllegalArgumentException("eventLoopThreads must be >= 1, got " + threads);
            }
            this.eventLoopThreads = threads;
            return this;
        }

        /**
         * How many calls may be in flight or waiting to retry at once; a call beyond it fails at once with
         * {@link Status#UNAVAILABLE} instead of queueing without bound. Default 65536.
         */
        public Builder maxRequestsInFlight(int max) {
            if (max < 1) {
                throw new IllegalArgumentException("maxRequestsInFlight must be >= 1, got " + max);
            }
            this.maxRequestsInFlight = max;
            return this;
        }

        /**
         * Builds the client. No connection is opened until the first call.
         *
         * @throws IllegalStateException if no gateway was given
         */
        public RattanClient build() {
            return new RattanClient(new ClientConfig(gateways, attemptTimeout, totalTimeout, maxRetries, backoffBase,
                    backoffMax, connectTimeout, eventLoopThreads, maxRequestsInFlight, meterRegistry, executor));
        }
    }
}
