package io.rattan.client;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rattan.api.Address;
import io.rattan.api.Bytes;
import io.rattan.api.GetOptions;
import io.rattan.api.Id;
import io.rattan.api.RoutingMode;
import io.rattan.api.Status;
import io.rattan.core.msg.ClientMessages.ClientGet;
import io.rattan.core.msg.ClientMessages.ClientPut;
import io.rattan.core.msg.ClientMessages.ClientRemove;
import io.rattan.core.msg.SecretBinding;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The client against fake gateways over real loopback sockets. */
class RattanClientTest {

    private static final Duration TTL = Duration.ofMinutes(10);
    private static final byte[] SECRET = "open sesame".getBytes(UTF_8);
    /** Bound on anything the tests wait for; generous, since CI machines are slow and loaded. */
    private static final Duration WAIT = Duration.ofSeconds(20);
    /** One copy through one gateway, unhedged: a get whose attempts are the only requests it sends. */
    private static final GetOptions ONE_COPY = GetOptions.of(RoutingMode.DELAY_AWARE);

    @RegisterExtension
    final Closer closer = new Closer();

    private FakeGateway gateway() throws InterruptedException {
        return closer.track(FakeGateway.start());
    }

    private FakeGateway gateway(FakeGateway.Store store) throws InterruptedException {
        return closer.track(FakeGateway.start(store));
    }

    private RattanClient.Builder builder(Address... gateways) {
        return RattanClient.builder().loadRing(false)
                .gateways(List.of(gateways))
                .backoff(Duration.ofMillis(1), Duration.ofMillis(20));
    }

    private RattanClient client(RattanClient.Builder builder) {
        return closer.track(builder.build());
    }


    private static byte[] utf8(String s) {
        return s.getBytes(UTF_8);
    }


    private static RattanException failureOf(CompletableFuture<?> future) {
        try {
            future.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            assertThat(e.getCause()).isInstanceOf(RattanException.class);
            return (RattanException) e.getCause();
        } catch (Exception e) {
            throw new AssertionError("the future did not fail in time", e);
        }
        throw new AssertionError("the future succeeded");
    }

    private static <T> T valueOf(CompletableFuture<T> future) throws Exception {
        return future.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }

    // ---- happy paths ----

    @Test
    void putGetRemoveThroughARealSocket() throws Exception {
        FakeGateway gw = gateway();
        RattanClient client = client(builder(gw.address()));
        Id key = RattanClient.key("greeting");

        PutResult hello = client.putSync(key, utf8("hello"), TTL, SECRET);
        PutResult world = client.putSync(key, utf8("world"), TTL);
        assertThat(hello.valueHash()).isEqualTo(RattanClient.valueHash(utf8("hello")));
        assertThat(hello.replicas()).isEqualTo(3);

        GetResult got = client.getSync(key);
        assertThat(got.values()).extracting(GetResult.Value::utf8).containsExactlyInAnyOrder("hello", "world");
        assertThat(got.complete()).isTrue();
        assertThat(got.pages()).isEqualTo(1);
        assertThat(got.hops()).isEqualTo(1);
        for (GetResult.Value v : got.values()) {
            assertThat(v.valueHash()).isEqualTo(v.value().sha256());
            assertThat(v.ttlRemaining()).isPositive().isLessThanOrEqualTo(TTL);
        }

        assertThat(client.removeSync(key, hello.valueHash(), SECRET, TTL)).isTrue();
        assertThat(client.getSync(key).values()).extracting(GetResult.Value::utf8).containsExactly("world");
        assertThat(client.removeSync(key, hello.valueHash(), SECRET, TTL)).as("already gone").isFalse();
        assertThat(world.valueHash()).isEqualTo(Bytes.utf8("world").sha256());
    }

    @Test
    void aKeyWithoutValuesGetsAnEmptyCompleteResult() throws Exception {
        RattanClient client = client(builder(gateway().address()));
        GetResult got = valueOf(client.get(RattanClient.key("nothing here")));
        assertThat(got.values()).isEmpty();
        assertThat(got.complete()).isTrue();
    }

    @Test
    void theWireCarriesTheBindingOfTheValuesProofAtPutAndTheProofAtRemoveNeverTheSecret() throws Exception {
        FakeGateway gw = gateway();
        RattanClient client = client(builder(gw.address()));
        Id key = RattanClient.key("k");
        PutResult put = valueOf(client.put(key, utf8("v"), Duration.ofMillis(1500), SECRET));
        valueOf(client.put(key, utf8("w"), TTL));
        valueOf(client.remove(key, put.valueHash(), SECRET, TTL));

        List<ClientPut> puts = gw.received().stream().filter(ClientPut.class::isInstance)
                .map(ClientPut.class::cast).toList();
        Bytes proof = SecretBinding.proof(Bytes.of(SECRET), key, put.valueHash());
        assertThat(puts.get(0).binding()).as("SHA-256(proof ‖ key ‖ value hash)")
                .isEqualTo(SecretBinding.of(proof, key, put.valueHash()))
                .isNotEqualTo(Bytes.of(SECRET)).isNotEqualTo(Bytes.of(SECRET).sha256());
        assertThat(puts.get(0).ttlSeconds()).as("ttl rounds up to whole seconds").isEqualTo(2);
        assertThat(puts.get(1).binding()).as("no secret, no binding").isEqualTo(Bytes.EMPTY);
        ClientRemove remove = (ClientRemove) gw.received().get(2);
        assertThat(remove.secret()).isEqualTo(proof).isNotEqualTo(Bytes.of(SECRET));
        assertThat(remove.valueHash()).isEqualTo(put.valueHash());
    }

    // ---- pagination ----

    @Test
    void getFollowsPlacemarksUntilEveryPageIsFetched() throws Exception {
        FakeGateway gw = gateway().pageValuesMax(3);
        RattanClient client = client(builder(gw.address()));
        Id key = RattanClient.key("many");
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            expected.add("value-" + i);
            valueOf(client.put(key, utf8("value-" + i), TTL));
        }

        GetResult all = valueOf(client.get(key));
        assertThat(all.values()).extracting(GetResult.Value::utf8).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(all.values()).extracting(GetResult.Value::valueHash).isSorted();
        assertThat(all.pages()).isEqualTo(4);
        assertThat(all.hops()).as("summed over pages").isEqualTo(4);
        assertThat(all.complete()).isTrue();
        assertThat(gw.requests(ClientGet.class)).isEqualTo(4);

        GetResult first = valueOf(client.getPage(key, 2, Bytes.EMPTY));
        assertThat(first.values()).hasSize(2);
        assertThat(first.complete()).isFalse();
        GetResult second = valueOf(client.getPage(key, 100, first.placemark()));
        assertThat(second.values()).as("the gateway's page bound wins").hasSize(3);
        assertThat(second.values().get(0).valueHash()).isGreaterThan(first.values().get(1).valueHash());
    }

    @Test
    void getStopsAtItsPageBoundAndSaysWhereToContinue() throws Exception {
        FakeGateway gw = gateway().pageValuesMax(1);
        RattanClient client = client(builder(gw.address()));
        Id key = RattanClient.key("huge");
        int count = RattanClient.GET_PAGES_MAX + 3;
        List<CompletableFuture<PutResult>> puts = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            puts.add(client.put(key, utf8("v" + i), TTL));
        }
        CompletableFuture.allOf(puts.toArray(new CompletableFuture<?>[0])).get(WAIT.toSeconds(), TimeUnit.SECONDS);

        GetResult partial = valueOf(client.get(key));
        assertThat(partial.values()).hasSize(RattanClient.GET_PAGES_MAX);
        assertThat(partial.pages()).isEqualTo(RattanClient.GET_PAGES_MAX);
        assertThat(partial.complete()).isFalse();
        GetResult rest = valueOf(client.getPage(key, 10, partial.placemark()));
        assertThat(rest.values()).hasSize(1);
    }

    // ---- final answers are not retried ----

    @Test
    void forbiddenSurfacesAsRattanExceptionWithoutRetry() throws Exception {
        FakeGateway.Store store = new FakeGateway.Store();
        FakeGateway a = gateway(store);
        FakeGateway b = gateway(store);
        RattanClient client = client(builder(a.address(), b.address()).maxRetries(3));
        Id key = RattanClient.key("guarded");
        PutResult put = valueOf(client.put(key, utf8("mine"), TTL, SECRET));

        RattanException e = failureOf(client.remove(key, put.valueHash(), utf8("wrong"), TTL));
        assertThat(e.status()).isEqualTo(Status.FORBIDDEN);
        assertThat(a.requests(ClientRemove.class) + b.requests(ClientRemove.class)).isEqualTo(1);

        assertThatThrownBy(() -> client.removeSync(key, put.valueHash(), utf8("wrong"), TTL))
                .isInstanceOfSatisfying(RattanException.class, x -> assertThat(x.status()).isEqualTo(Status.FORBIDDEN));
        assertThat(store.size(key)).isEqualTo(1);
    }

    @Test
    void aValuePutWithoutSecretCannotBeRemoved() throws Exception {
        RattanClient client = client(builder(gateway().address()));
        Id key = RattanClient.key("permanent");
        PutResult put = valueOf(client.put(key, utf8("v"), TTL));
        assertThat(failureOf(client.remove(key, put.valueHash(), SECRET, TTL)).status()).isEqualTo(Status.FORBIDDEN);
    }

    @Test
    void tooLargeAndBadRequestAreFinal() throws Exception {
        FakeGateway gw = gateway();
        RattanClient client = client(builder(gw.address()).maxRetries(5));
        gw.failNext(1, Status.TOO_LARGE);
        assertThat(failureOf(client.put(RattanClient.key("k"), utf8("v"), TTL)).status()).isEqualTo(Status.TOO_LARGE);
        gw.failNext(1, Status.BAD_REQUEST);
        // Unhedged: get(key) would send its hedge copy once the first failed, and that one would succeed.
        assertThat(failureOf(client.get(RattanClient.key("k"), ONE_COPY)).status()).isEqualTo(Status.BAD_REQUEST);
        assertThat(gw.requests()).isEqualTo(2);

        byte[] tooBig = new byte[RattanClient.VALUE_BYTES_MAX + 1];
        assertThat(failureOf(client.put(RattanClient.key("k"), tooBig, TTL)).status()).isEqualTo(Status.TOO_LARGE);
        assertThat(gw.requests()).as("refused before sending").isEqualTo(2);
    }

    // ---- transient failures are retried on the next gateway ----

    @Test
    void aDeadGatewayIsSkippedAndRequestsSucceedOnTheLiveOne() throws Exception {
        FakeGateway live = gateway();
        RattanClient client = client(builder(FakeGateway.deadAddress(), live.address()).maxRetries(1));
        Id key = RattanClient.key("k");
        for (int i = 0; i < 6; i++) {
            assertThat(valueOf(client.put(key, utf8("v" + i), TTL)).replicas()).isEqualTo(3);
        }
        assertThat(valueOf(client.get(key)).values()).hasSize(6);
        assertThat(live.acceptedConnections()).isEqualTo(1);
    }

    @Test
    void noLiveGatewayFailsAsUnavailableAfterTheRetries() throws Exception {
        RattanClient client = client(builder(FakeGateway.deadAddress(), FakeGateway.deadAddress()).maxRetries(2));
        RattanException e = failureOf(client.get(RattanClient.key("k")));
        assertThat(e.status()).isEqualTo(Status.UNAVAILABLE);
        assertThat(e).hasMessageContaining("3 attempt(s)").hasMessageContaining("cannot connect");
    }

    @Test
    void anAttemptTimeoutMovesTheCallToAnotherGateway() throws Exception {
        FakeGateway.Store store = new FakeGateway.Store();
        FakeGateway silent = gateway(store).mode(FakeGateway.Mode.DROP);
        FakeGateway live = gateway(store);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        RattanClient client = client(builder(silent.address(), live.address())
                .attemptTimeout(Duration.ofMillis(200))
                .totalTimeout(WAIT)
                .meterRegistry(registry));
        Id key = RattanClient.key("k");
        // Calls start round-robin, so among four at least two have their turn at the silent gateway; the first
        // must move on. Its silent connection is then closed and the gateway suspended until a new connection opens
        // (a background probe), so a later call may go straight to the live one instead.
        for (int i = 0; i < 4; i++) {
            valueOf(client.put(key, utf8("v" + i), TTL));
        }
        assertThat(store.size(key)).isEqualTo(4);
        assertThat(silent.requests()).isGreaterThanOrEqualTo(1);
        // At least: on a loaded machine a live attempt may also time out and be retried.
        assertThat(live.requests()).isGreaterThanOrEqualTo(4);
        assertThat(registry.get(ClientMetrics.RETRIES).tag("op", "put").counter().count()).isGreaterThanOrEqualTo(1);
    }

    @Test
    void unavailableIsRetriedUntilItSucceeds() throws Exception {
        FakeGateway gw = gateway().failNext(2, Status.UNAVAILABLE);
        RattanClient client = client(builder(gw.address()).maxRetries(3));
        assertThat(valueOf(client.put(RattanClient.key("k"), utf8("v"), TTL)).replicas()).isEqualTo(3);
        assertThat(gw.requests()).isEqualTo(3);
    }

    @Test
    void rateLimitedIsRetriedNoSoonerThanTheGatewayAsksAndCounted() throws Exception {
        FakeGateway gw = gateway().failNext(1, Status.RATE_LIMITED, 300);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        RattanClient client = client(builder(gw.address()).maxRetries(3).meterRegistry(registry));
        long start = System.nanoTime();
        assertThat(valueOf(client.put(RattanClient.key("k"), utf8("v"), TTL)).replicas()).isEqualTo(3);
        // A lower bound only: honouring the advice can take longer on a loaded machine, never less.
        assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(300_000_000L);
        assertThat(gw.requests()).isEqualTo(2);
        assertThat(client.rateLimitedAttempts()).isEqualTo(1);
        assertThat(registry.get(ClientMetrics.RATE_LIMITED).tag("op", "put").counter().count()).isEqualTo(1);
    }

    @Test
    void quotaExceededIsFinalAndCarriesItsRetryAdvice() throws Exception {
        FakeGateway gw = gateway().failNext(1, Status.QUOTA_EXCEEDED, 60_000);
        RattanClient client = client(builder(gw.address()).maxRetries(3));
        RattanException e = failureOf(client.put(RattanClient.key("k"), utf8("v"), TTL));
        assertThat(e.status()).isEqualTo(Status.QUOTA_EXCEEDED);
        assertThat(e.retryAfter()).isEqualTo(java.time.Duration.ofMinutes(1));
        assertThat(gw.requests()).isEqualTo(1);
    }

    @Test
    void retriesStopAtMaxRetries() throws Exception {
        FakeGateway gw = gateway().mode(FakeGateway.Mode.UNAVAILABLE);
        RattanClient client = client(builder(gw.address()).maxRetries(2));
        // One copy, so that the attempts counted are its own: get(key) hedges, and the hedge would retry too.
        RattanException e = failureOf(client.get(RattanClient.key("k"), ONE_COPY));
        assertThat(e.status()).isEqualTo(Status.UNAVAILABLE);
        assertThat(gw.requests()).isEqualTo(3);
    }

    @Test
    void aClosedConnectionIsReopenedAndTheRequestRetried() throws Exception {
        FakeGateway gw = gateway().closeNext(1);
        RattanClient client = client(builder(gw.address()));
        valueOf(client.put(RattanClient.key("k"), utf8("v"), TTL));
        assertThat(gw.acceptedConnections()).isEqualTo(2);
        assertThat(gw.requests()).isEqualTo(2);
    }

    @Test
    void anUndecodableReplyClosesTheConnectionAndTheRequestIsRetried() throws Exception {
        FakeGateway gw = gateway().garbageNext(1);
        RattanClient client = client(builder(gw.address()));
        valueOf(client.put(RattanClient.key("k"), utf8("v"), TTL));
        assertThat(gw.acceptedConnections()).isEqualTo(2);
    }

    @Test
    void aConnectionSilentForAnAttemptTimeoutIsReplaced() throws Exception {
        FakeGateway gw = gateway().mode(FakeGateway.Mode.DROP);
        RattanClient client = client(builder(gw.address()).attemptTimeout(Duration.ofSeconds(1)).maxRetries(1)
                .totalTimeout(WAIT));
        assertThat(failureOf(client.get(RattanClient.key("k"))).status()).isEqualTo(Status.TIMEOUT);
        // At least: the hedge copy's attempt, taken down when the first copy's silent connection was closed under
        // it, is tried again without spending its retry, on a fresh connection too.
        int atFailure = gw.acceptedConnections();
        assertThat(atFailure).as("the retry went out on a fresh connection").isGreaterThanOrEqualTo(2);

        gw.mode(FakeGateway.Mode.SERVE);
        valueOf(client.put(RattanClient.key("k"), utf8("v"), TTL));
        assertThat(gw.acceptedConnections()).as("the silent connections were closed").isGreaterThan(atFailure);
    }

    @Test
    void aBusyConnectionSurvivesAnAttemptTimeout() throws Exception {
        FakeGateway gw = gateway();
        // The other reply must arrive within the held attempt's timeout: leave loaded machines plenty of room.
        RattanClient client = client(builder(gw.address()).attemptTimeout(Duration.ofSeconds(2)).maxRetries(0));
        valueOf(client.put(RattanClient.key("k"), utf8("v"), TTL));
        gw.hold(true);
        // One copy: a hedge would be answered, and the held attempt could not time out alone.
        CompletableFuture<GetResult> slow = client.get(RattanClient.key("k"), ONE_COPY);
        await().atMost(WAIT).until(() -> gw.heldCount() == 1);
        // Another reply arrives meanwhile: the gateway is alive, only slow for the held request.
        gw.hold(false);
        valueOf(client.put(RattanClient.key("other"), utf8("v"), TTL));
        assertThat(failureOf(slow).status()).isEqualTo(Status.TIMEOUT);
        assertThat(gw.acceptedConnections()).isEqualTo(1);
    }

    // ---- the total timeout bounds everything ----

    @Test
    void theTotalTimeoutBoundsASlowAttempt() throws Exception {
        FakeGateway gw = gateway().mode(FakeGateway.Mode.DROP);
        RattanClient client = client(builder(gw.address())
                .attemptTimeout(Duration.ofSeconds(60))
                .totalTimeout(Duration.ofMillis(300)));
        long start = System.nanoTime();
        RattanException e = failureOf(client.get(RattanClient.key("k")));
        long elapsedMillis = (System.nanoTime() - start) / 1_000_000;
        assertThat(e.status()).isEqualTo(Status.TIMEOUT);
        assertThat(e).hasMessageContaining("total timeout");
        assertThat(elapsedMillis).isBetween(250L, 10_000L);
    }

    @Test
    void theTotalTimeoutBoundsEndlessRetries() throws Exception {
        FakeGateway gw = gateway().mode(FakeGateway.Mode.UNAVAILABLE);
        RattanClient client = client(builder(gw.address())
                .maxRetries(1_000_000)
                .totalTimeout(Duration.ofSeconds(1)));
        long start = System.nanoTime();
        RattanException e = failureOf(client.put(RattanClient.key("k"), utf8("v"), TTL));
        assertThat(e.status()).isEqualTo(Status.TIMEOUT);
        assertThat(e.getCause()).isInstanceOfSatisfying(RattanException.class,
                c -> assertThat(c.status()).isEqualTo(Status.UNAVAILABLE));
        assertThat(System.nanoTime() - start).isLessThan(Duration.ofSeconds(10).toNanos());
        assertThat(gw.requests()).isGreaterThan(1);
    }

    // ---- multiplexing ----

    @Test
    void concurrentRequestsShareOneConnectionAndMatchOutOfOrderReplies() throws Exception {
        FakeGateway gw = gateway();
        RattanClient client = client(builder(gw.address()).eventLoopThreads(2));
        int n = 200;
        List<CompletableFuture<PutResult>> puts = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            puts.add(client.put(RattanClient.key("key-" + i), utf8("value-" + i), TTL));
        }
        CompletableFuture.allOf(puts.toArray(new CompletableFuture<?>[0])).get(WAIT.toSeconds(), TimeUnit.SECONDS);

        gw.hold(true);
        List<CompletableFuture<GetResult>> gets = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            // One copy each: a hedge would add a request in flight while the gateway holds them.
            gets.add(client.get(RattanClient.key("key-" + i), ONE_COPY));
        }
        await().atMost(WAIT).until(() -> gw.heldCount() == n);
        assertThat(client.requestsInFlight()).isEqualTo(n);
        gw.releaseHeldInReverse();
        for (int i = 0; i < n; i++) {
            assertThat(valueOf(gets.get(i)).values()).extracting(GetResult.Value::utf8).containsExactly("value-" + i);
        }
        assertThat(gw.acceptedConnections()).isEqualTo(1);
        assertThat(client.requestsInFlight()).isZero();
    }

    @Test
    void callsBeyondTheInFlightBoundFailFast() throws Exception {
        FakeGateway gw = gateway().mode(FakeGateway.Mode.DROP);
        RattanClient client = client(builder(gw.address()).maxRequestsInFlight(2).totalTimeout(WAIT));
        CompletableFuture<GetResult> a = client.get(RattanClient.key("a"));
        CompletableFuture<GetResult> b = client.get(RattanClient.key("b"));
        RattanException e = failureOf(client.get(RattanClient.key("c")));
        assertThat(e.status()).isEqualTo(Status.UNAVAILABLE);
        assertThat(e).hasMessageContaining("too many requests in flight");
        assertThat(a).isNotDone();
        assertThat(b).isNotDone();
    }

    // ---- lifecycle ----

    @Test
    void closeFailsPendingCallsAndLaterOnes() throws Exception {
        FakeGateway gw = gateway().mode(FakeGateway.Mode.DROP);
        RattanClient client = client(builder(gw.address()).totalTimeout(Duration.ofMinutes(5))
                .attemptTimeout(Duration.ofMinutes(5)));
        CompletableFuture<GetResult> pending = client.get(RattanClient.key("k"));
        await().atMost(WAIT).until(() -> gw.requests() == 1);

        client.close();
        RattanException e = failureOf(pending);
        assertThat(e.status()).isEqualTo(Status.UNAVAILABLE);
        assertThat(e).hasMessageContaining("closed");
        assertThat(failureOf(client.put(RattanClient.key("k"), utf8("v"), TTL))).hasMessageContaining("closed");
        assertThat(client.requestsInFlight()).isZero();
        client.close();
    }

    @Test
    void cancellingAFutureStopsItsRetries() throws Exception {
        FakeGateway gw = gateway().mode(FakeGateway.Mode.DROP);
        RattanClient client = client(builder(gw.address()).totalTimeout(Duration.ofMinutes(5))
                .attemptTimeout(Duration.ofMinutes(5)));
        CompletableFuture<GetResult> call = client.get(RattanClient.key("k"));
        await().atMost(WAIT).until(() -> gw.requests() == 1);
        call.cancel(false);
        await().atMost(WAIT).until(() -> client.requestsInFlight() == 0);
        assertThat(client.runtime().gateway(0).currentConnection().pendingCount()).isZero();
    }

    // ---- metrics ----

    @Test
    void callsAreTimedByOpAndOutcome() throws Exception {
        FakeGateway gw = gateway();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        RattanClient client = client(builder(gw.address()).meterRegistry(registry));
        Id key = RattanClient.key("k");
        PutResult put = client.putSync(key, utf8("v"), TTL, SECRET);
        client.getSync(key);
        assertThatThrownBy(() -> client.removeSync(key, put.valueHash(), utf8("nope"), TTL))
                .isInstanceOf(RattanException.class);
        client.removeSync(key, put.valueHash(), SECRET, TTL);
        client.removeSync(key, put.valueHash(), SECRET, TTL);

        assertThat(timerCount(registry, "put", "success")).isEqualTo(1);
        assertThat(timerCount(registry, "get", "success")).isEqualTo(1);
        assertThat(timerCount(registry, "remove", "forbidden")).isEqualTo(1);
        assertThat(timerCount(registry, "remove", "success")).isEqualTo(1);
        assertThat(timerCount(registry, "remove", "not_found")).isEqualTo(1);
        assertThat(registry.get(ClientMetrics.IN_FLIGHT).gauge().value()).isZero();
    }

    private static long timerCount(SimpleMeterRegistry registry, String op, String outcome) {
        return registry.get(ClientMetrics.REQUESTS).tag("op", op).tag("outcome", outcome).timer().count();
    }

    // ---- arguments ----

    @Test
    void badArgumentsAreRejectedAtTheCall() throws Exception {
        RattanClient client = client(builder(gateway().address()));
        Id key = RattanClient.key("k");
        assertThatThrownBy(() -> client.put(key, utf8("v"), Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ttl");
        assertThatThrownBy(() -> client.put(key, utf8("v"), TTL, new byte[0]))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("secret");
        assertThatThrownBy(() -> client.put(key, utf8("v"), TTL, new byte[RattanClient.SECRET_BYTES_MAX + 1]))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("secret");
        assertThatThrownBy(() -> client.getPage(key, 0, Bytes.EMPTY)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> client.remove(key, Bytes.EMPTY, SECRET, TTL))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> client.put(null, utf8("v"), TTL)).isInstanceOf(NullPointerException.class);
        byte[] value = utf8("v");
        PutResult put = valueOf(client.put(key, value, TTL));
        Arrays.fill(value, (byte) 'x');
        assertThat(valueOf(client.get(key)).values().get(0).utf8()).as("the value was copied").isEqualTo("v");
        assertThat(put.valueHash()).isEqualTo(RattanClient.valueHash(utf8("v")));
    }
}
