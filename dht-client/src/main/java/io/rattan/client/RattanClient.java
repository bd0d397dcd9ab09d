package io.rattan.client;

import io.rattan.api.Bytes;
import io.rattan.api.GetOptions;
import io.rattan.api.Id;
import io.rattan.api.RoutingMode;
import io.rattan.api.Status;
import io.rattan.api.ValueFilter;
import io.rattan.core.client.HedgeThreshold;
import io.rattan.core.codec.MessageCodec;
import io.rattan.core.msg.ClientMessages.ClientGet;
import io.rattan.core.msg.ClientMessages.ClientPut;
import io.rattan.core.msg.PutCondition;
import io.rattan.core.msg.SecretBinding;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

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
 * <p>A client starts in the default namespace; {@link #namespace(String)} gives one of another namespace, over the
 * same connections. The package documentation tells how calls are attempted and retried across gateways, how a call
 * fails, of the client's threads (callbacks never run on its event loops), of watches, of one-hop and quorum gets, and
 * of the client's metrics.
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
    /** The shortest TTL of a value kept alive by {@link #putPermanent}: it is put again every half TTL. */
    public static final Duration PERMANENT_TTL_MIN = Duration.ofSeconds(io.rattan.core.client.KeepAlive.TTL_SECONDS_MIN);

    private final ClientRuntime runtime;
    private final GetRacer racer;
    private final Delivery delivery;
    private final OwnedCalls owned;
    private final SecretRemoves removes;
    private final Scope scope;

    private RattanClient(ClientRuntime runtime, GetRacer racer, Delivery delivery, Scope scope) {
        this.runtime = runtime;
        this.racer = racer;
        this.delivery = delivery;
        this.scope = scope;
        this.owned = new OwnedCalls(runtime, delivery, scope);
        this.removes = new SecretRemoves(runtime, delivery, scope);
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

    /**
     * A client of namespace {@code name}, over this client's connections (the package documentation, "Namespaces").
     *
     * @param name 1..64 of {@code a-z 0-9 . _ -}, starting with a letter or digit; {@code "default"}: the node's own
     * @throws IllegalArgumentException for a malformed name
     */
    public RattanClient namespace(String name) {
        Scope to = new Scope(Objects.requireNonNull(name, "name"));
        return to.equals(scope) ? this : new RattanClient(runtime, racer, delivery, to);
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
     * same secret can remove the value. The secret never leaves this process: the put carries the binding of the
     * value's remove proof ({@link SecretBinding#bindingFor}); {@link #remove} sends the proof, which opens it only.
     *
     * @param key    the key
     * @param value  the value's bytes (copied); at most {@link #VALUE_BYTES_MAX}, and at most what the gateway allows
     * @param ttl    how long the value lives; rounded up to whole seconds; gateways cap it at their maximum
     * @param secret the removal secret, or null for a value that cannot be removed; at most {@link #SECRET_BYTES_MAX}
     * @return completes with the value's hash and replica count, or with a {@link RattanException}
     *         ({@link Status#TOO_LARGE} for a value above the limit)
     * @throws IllegalArgumentException for a null argument (other than the secret), a non-positive ttl, or an
     *                                  empty or oversized secret
     */
    public CompletableFuture<PutResult> put(Id key, byte[] value, Duration ttl, byte[] secret) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        int ttlSeconds = Arguments.ttlSeconds(ttl);
        if (secret != null) {
            Arguments.checkSecret(secret);
        }
        long start = System.nanoTime();
        if (value.length > VALUE_BYTES_MAX) {
            return delivery.tooLarge(Op.PUT, start, value.length);
        }
        Bytes v = Bytes.of(value);
        Bytes hash = v.sha256();
        Bytes binding = secret == null ? Bytes.EMPTY : SecretBinding.bindingFor(Bytes.of(secret), key, hash);
        ClientPut request = new ClientPut(key, v, ttlSeconds, binding);
        return delivery.toCaller(Op.PUT, start,
                runtime.submit(Op.PUT, scope.wrap(request), runtime.deadline(start), reply -> Replies.put(reply, hash)));
    }

    /** Blocking {@link #put(Id, byte[], Duration)}; throws {@link RattanException} on failure. */
    public PutResult putSync(Id key, byte[] value, Duration ttl) {
        return Failures.await(put(key, value, ttl));
    }

    /** Blocking {@link #put(Id, byte[], Duration, byte[])}; throws {@link RattanException} on failure. */
    public PutResult putSync(Id key, byte[] value, Duration ttl, byte[] secret) {
        return Failures.await(put(key, value, ttl, secret));
    }

    // ---- owned values ----

    /**
     * Stores {@code value} as {@code owner}'s value {@code valueId} under {@code key}, version {@code seq}, until
     * {@code expiresAt}. The put is signed here with the owner's key, which never leaves this process; every replica
     * checks the signature. One (owner, value id) holds one value under a key: a higher sequence replaces a lower one
     * on every replica; the same version again succeeds (so a retry is safe), and with a later expiry extends it.
     *
     * @param seq       the version (unsigned); above the one held
     * @param expiresAt when the value expires; at most the gateway's longest TTL ahead (7 days by default)
     * @return completes with the value's hash (SHA-256 of its bytes) and replica count, or with a
     *         {@link RattanException}: {@link Status#CONFLICT} for a sequence below the one held or equal to it with
     *         other data, {@link Status#FORBIDDEN} for an expiry already past or too far ahead
     * @throws IllegalArgumentException for a null argument or an expiry before 1970
     */
    public CompletableFuture<PutResult> putOwned(Id key, byte[] value, OwnerKey owner, long valueId, long seq,
                                                 Instant expiresAt) {
        Bytes v = Bytes.of(Objects.requireNonNull(value, "value"));
        return owned.send(Op.PUT, key, v, owner, valueId, seq, expiresAt, PutCondition.NONE,
                reply -> Replies.put(reply, v.sha256()));
    }

    /**
     * Compare-and-swap of {@code owner}'s value {@code valueId} under {@code key}: stores {@code value} as version
     * {@code newSeq} only if the key's root holds version {@code expectedSeq} (null: only if it holds none), checked
     * and written in one step there. A swap retried after it succeeded (same version) counts as swapped. While the
     * key's root changes, the check is against what the new root holds (docs/http-api.md, "Owned values").
     *
     * @param expectedSeq the sequence the value must have now, or null for a value that must not exist yet
     * @return completes with whether it swapped and the sequence held, or with a {@link RattanException} for any
     *         other failure ({@link Status#FORBIDDEN}: the expiry is past or too far ahead)
     */
    public CompletableFuture<SwapResult> compareAndSet(Id key, byte[] value, OwnerKey owner, long valueId,
                                                       Long expectedSeq, long newSeq, Instant expiresAt) {
        Bytes v = Bytes.of(Objects.requireNonNull(value, "value"));
        PutCondition condition = expectedSeq == null ? PutCondition.ABSENT : PutCondition.ifSeq(expectedSeq);
        return owned.send(Op.PUT, key, v, owner, valueId, newSeq, expiresAt, condition,
                reply -> Replies.swap(reply, newSeq));
    }

    /**
     * Removes {@code owner}'s value {@code valueId} under {@code key}: a signed remove (op 2) with a sequence
     * {@code seq} above the value's, whose tombstone lives until {@code expiresAt}, at least as long as the value it
     * removes would have. Every replica keeps the tombstone over every lower sequence, so a replica that was away
     * cannot bring the value back; a later put needs a sequence above {@code seq}.
     *
     * @return completes with how many replicas held the tombstone, or with a {@link RattanException}:
     *         {@link Status#CONFLICT} when a sequence at or above {@code seq} is held, or the tombstone would expire
     *         before the value; {@link Status#FORBIDDEN} for an expiry already past or too far ahead
     */
    public CompletableFuture<Integer> removeOwned(Id key, OwnerKey owner, long valueId, long seq, Instant expiresAt) {
        return owned.send(Op.REMOVE, key, Bytes.EMPTY, owner, valueId, seq, expiresAt, PutCondition.NONE,
                Replies::removeOwned);
    }

    /** Blocking {@link #putOwned}; throws {@link RattanException} on failure. */
    public PutResult putOwnedSync(Id key, byte[] value, OwnerKey owner, long valueId, long seq, Instant expiresAt) {
        return Failures.await(putOwned(key, value, owner, valueId, seq, expiresAt));
    }

    /** Blocking {@link #compareAndSet}; throws {@link RattanException} on failure. */
    public SwapResult compareAndSetSync(Id key, byte[] value, OwnerKey owner, long valueId, Long expectedSeq,
                                        long newSeq, Instant expiresAt) {
        return Failures.await(compareAndSet(key, value, owner, valueId, expectedSeq, newSeq, expiresAt));
    }

    /** Blocking {@link #removeOwned}; throws {@link RattanException} on failure. */
    public int removeOwnedSync(Id key, OwnerKey owner, long valueId, long seq, Instant expiresAt) {
        return Failures.await(removeOwned(key, owner, valueId, seq, expiresAt));
    }

    // ---- permanent values ----

    /**
     * Stores {@code value} as {@link #put(Id, byte[], Duration, byte[])} does and keeps it alive from this client
     * ({@link PermanentValue}): put again every half {@code ttl} through any gateway, until the handle or this client
     * closes or a remove ends it. To outlive this process, let a gateway keep it (HTTP {@code ?permanent=true}).
     * @param ttl the TTL each put gives; at least {@link #PERMANENT_TTL_MIN}
     * @return completes with the handle once the first put succeeded, or with that put's failure
     */
    public CompletableFuture<PermanentValue> putPermanent(Id key, byte[] value, Duration ttl, byte[] secret) {
        Duration each = Arguments.permanentTtl(ttl);
        byte[] v = Objects.requireNonNull(value, "value").clone();
        byte[] s = secret == null ? null : secret.clone();
        return PermanentValue.start(key, valueHash(v), each, () -> put(key, v, each, s), runtime);
    }

    /**
     * As {@link #putPermanent}, for {@code owner}'s value ({@link #putOwned}): each put signs the same sequence with
     * an expiry {@code ttl} ahead; the puts stop once the owner removes the value or writes a later sequence.
     * @return completes with the handle once the first put succeeded, or with that put's failure
     */
    public CompletableFuture<PermanentValue> putPermanentOwned(Id key, byte[] value, OwnerKey owner, long valueId,
                                                               long seq, Duration ttl) {
        Duration each = Arguments.permanentTtl(ttl);
        byte[] v = Objects.requireNonNull(value, "value").clone();
        return PermanentValue.start(key, valueHash(v), each, () -> putOwned(key, v, owner, valueId, seq,
                Instant.now().plus(each)), runtime);
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
     * its recent gets' latencies, see {@link HedgeThreshold}). The first good answer with a value wins (one with no
     * value only once every copy answered: a liar on one path can answer empty); the other copies are cancelled. Each copy is retried on further gateways like any call, within the total timeout; the get fails
     * only when every copy failed, with the last failure. With more copies than configured gateways, copies share
     * gateways. {@link GetOptions#defaults()} is the recommended mode: delay-aware, one gateway, hedged.
     *
     * <p>The result's {@link GetResult#cost()} is what the winning copy of each page reports.
     *
     * <p>{@link GetOptions#oneHop()}: the client sends each copy straight to a replica, by its own image of the ring;
     * {@link GetOptions#withQuorum(int)}: each page reads R replicas (see the package documentation for both).
     *
     * @return completes with the values, or with a {@link RattanException}
     */
    public CompletableFuture<GetResult> get(Id key, GetOptions options) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(options, "options");
        long start = System.nanoTime();
        return delivery.getToCaller(scope.name(), key, options.filter(), start,
                new Pager(runtime, racer, key, options, scope, runtime.deadline(start)).start());
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
        Arguments.checkPageValues(maxValues);
        Bytes mark = Arguments.placemark(placemark);
        long start = System.nanoTime();
        return delivery.getToCaller(scope.name(), key, start, runtime.submit(Op.GET,
                scope.wrap(ClientGet.of(key, GetOptions.of(routing)).page(maxValues, mark)), runtime.deadline(start),
                Replies::getPage));
    }

    /** Blocking {@link #get(Id)}; throws {@link RattanException} on failure. */
    public GetResult getSync(Id key) {
        return Failures.await(get(key));
    }

    /** Blocking {@link #get(Id, RoutingMode)}; throws {@link RattanException} on failure. */
    public GetResult getSync(Id key, RoutingMode routing) {
        return Failures.await(get(key, routing));
    }

    /** Blocking {@link #get(Id, GetOptions)}; throws {@link RattanException} on failure. */
    public GetResult getSync(Id key, GetOptions options) {
        return Failures.await(get(key, options));
    }

    /** As {@link #watch(Id, ValueFilter, WatchListener)}, of every value. */
    public Watch watch(Id key, WatchListener listener) {
        return watch(key, ValueFilter.NONE, listener);
    }

    /**
     * Watches the values of {@code key} that pass {@code filter} (as a get's, {@link GetOptions#filter()}): the
     * listener hears each live value, then READY, then every change, across gateway failures, until the handle or
     * the client closes (the package documentation tells of the guarantees and the listener's thread).
     */
    public Watch watch(Id key, ValueFilter filter, WatchListener listener) {
        return new WatchStream(runtime, scope, Objects.requireNonNull(key, "key"), Objects.requireNonNull(filter, "filter"),
                Objects.requireNonNull(listener, "listener")).start();
    }

    // ---- remove ----

    /**
     * Removes the value with hash {@code valueHash} from {@code key}, presenting {@code secret}; the replicas keep a
     * tombstone for {@code ttl} (at least the value's remaining TTL, or a replica that missed it brings it back).
     *
     * @param valueHash SHA-256 of the value ({@link PutResult#valueHash()}, {@link GetResult.Value#valueHash()},
     *                  {@link #valueHash(byte[])})
     * @param secret    the secret the value was put with; only the value's remove proof is sent (http-api.md)
     * @return completes with true when the value was removed, false when no replica held it; fails with a
     *         {@link RattanException} whose status is {@link Status#FORBIDDEN} when the secret is wrong (or the
     *         value was put without one, or by a client of before remove proofs: {@link #removeLegacy}), and never
     *         retries that
     * @throws IllegalArgumentException for a null argument, a non-positive ttl, or an empty or oversized secret or hash
     */
    public CompletableFuture<Boolean> remove(Id key, Bytes valueHash, byte[] secret, Duration ttl) {
        return removes.remove(key, valueHash, secret, ttl, false);
    }

    /** Blocking {@link #remove}; throws {@link RattanException} on failure. */
    public boolean removeSync(Id key, Bytes valueHash, byte[] secret, Duration ttl) {
        return Failures.await(remove(key, valueHash, secret, ttl));
    }

    /**
     * As {@link #remove}, for a value a client of before remove proofs (7 December 2026) bound to {@code secret}
     * itself: sends the secret, which every node on the path sees (a value put by this client is refused so, 403).
     */
    public CompletableFuture<Boolean> removeLegacy(Id key, Bytes valueHash, byte[] secret, Duration ttl) {
        return removes.remove(key, valueHash, secret, ttl, true);
    }

    /** Blocking {@link #removeLegacy}; throws {@link RattanException} on failure. */
    public boolean removeLegacySync(Id key, Bytes valueHash, byte[] secret, Duration ttl) {
        return Failures.await(removeLegacy(key, valueHash, secret, ttl));
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

    /**
     * Settings for a {@link RattanClient}; every one but the gateways has a default. Not thread-safe; build on one
     * thread. Setters reject nonsensical values at once with {@link IllegalArgumentException}; {@link #build()}
     * checks the whole with {@link IllegalStateException} (no gateway) or {@link IllegalArgumentException}.
     */
    // The setters, their defaults and checks are inherited from ClientSettings, so that this file holds the client's
    // operations; they return Builder, so callers see the same methods as when they were declared here.
    public static final class Builder extends ClientSettings<Builder> {

        private Builder() {
        }

        @Override
        Builder self() {
            return this;
        }

        /**
         * Builds the client. No connection is opened until the first call.
         *
         * @throws IllegalStateException if no gateway was given
         */
        public RattanClient build() {
            ClientRuntime runtime = new ClientRuntime(config());
            return new RattanClient(runtime, new GetRacer(runtime), new Delivery(runtime), Scope.DEFAULT);
        }
    }
}
