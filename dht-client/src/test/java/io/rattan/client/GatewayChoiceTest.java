package io.rattan.client;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.rattan.api.Address;
import io.rattan.api.Bytes;
import io.rattan.api.GetOptions;
import io.rattan.api.Id;
import io.rattan.api.RoutingMode;
import io.rattan.core.msg.ClientMessages.ClientGet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Which gateway a call's attempts go to when some gateways are down, over real loopback sockets: closed ports (a
 * killed node's gateway refuses connections) and fake gateways that are stopped midway (a node killed under open
 * connections). The repair-at-volume test (docs/durability.md, proof 2) saw gets fail after 4 attempts although 5
 * of its 8 gateways were alive: a refused gateway was avoided only until its suspension ran out (the backoff cap,
 * 1 s), and since the killed gateways were found dead together, their suspensions ran out together; a call whose turn
 * fell on them then spent every retry on them. A lost connection did not suspend its gateway at all.
 */
class GatewayChoiceTest {

    private static final Duration TTL = Duration.ofMinutes(10);
    private static final Duration WAIT = Duration.ofSeconds(20);
    /** The backoff cap, and so the first suspension of a gateway that refused a connection. */
    private static final Duration BACKOFF_MAX = Duration.ofMillis(20);
    /** Longer than {@link #BACKOFF_MAX}: a suspension that simply ran out would have run out by then. */
    private static final Duration PAUSE = Duration.ofMillis(100);

    @RegisterExtension
    final Closer closer = new Closer();

    @Test
    void gatewaysThatRefusedStayAvoidedWhileOthersAreAlive() throws Exception {
        // Four killed gateways next to each other in the list, then four live ones; 3 retries, as by default.
        List<Address> gateways = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            gateways.add(FakeGateway.deadAddress());
        }
        FakeGateway.Store store = new FakeGateway.Store();
        List<FakeGateway> live = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            FakeGateway g = closer.track(FakeGateway.start(store));
            live.add(g);
            gateways.add(g.address());
        }
        RattanClient client = closer.track(RattanClient.builder().loadRing(false).gateways(gateways).maxRetries(3)
                .backoff(Duration.ofMillis(1), BACKOFF_MAX).build());
        Id key = RattanClient.key("k");

        // One call per gateway's turn: each killed gateway refuses the call whose turn it is, if not an earlier one.
        // A call whose turn falls on the first of them meets all four before any is known dead, and may fail.
        for (int i = 0; i < gateways.size(); i++) {
            client.put(key, utf8("warm-" + i), TTL).handle((r, e) -> null).get(WAIT.toSeconds(), TimeUnit.SECONDS);
        }

        // From now on every gateway's refusal is known. Each call comes after a pause longer than the first
        // suspension: two of these calls have their turn at the first killed gateway, and must not walk through all
        // four again.
        int calls = 2 * gateways.size();
        for (int i = 0; i < calls; i++) {
            Thread.sleep(PAUSE.toMillis());
            assertThat(succeeds(client.put(key, utf8("v" + i), TTL))).as("put %d", i).isNull();
        }
        assertThat(store.size(key)).isGreaterThanOrEqualTo(calls);
    }

    @Test
    void aGatewayKilledUnderOpenConnectionsIsAvoided() throws Exception {
        FakeGateway.Store store = new FakeGateway.Store();
        List<FakeGateway> all = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            all.add(closer.track(FakeGateway.start(store)));
        }
        // One retry: a call whose turn falls on the first killed gateway has one more attempt, which must not go to
        // the second.
        RattanClient client = closer.track(RattanClient.builder().loadRing(false).gateways(all.stream().map(FakeGateway::address).toList())
                .maxRetries(1).backoff(Duration.ofMillis(1), BACKOFF_MAX).build());
        Id key = RattanClient.key("k");
        for (int i = 0; i < all.size(); i++) {
            assertThat(succeeds(client.put(key, utf8("warm-" + i), TTL))).isNull();
        }
        assertThat(all).allSatisfy(g -> assertThat(g.acceptedConnections()).isEqualTo(1));

        // Two gateways die with their connections open, as a SIGKILLed node's do.
        all.get(0).close();
        all.get(1).close();
        ClientRuntime runtime = client.runtime();
        await().atMost(WAIT).until(() -> runtime.gateway(0).currentConnection().isClosed()
                && runtime.gateway(1).currentConnection().isClosed());

        int calls = 2 * all.size();
        for (int i = 0; i < calls; i++) {
            Thread.sleep(PAUSE.toMillis());
            assertThat(succeeds(client.put(key, utf8("v" + i), TTL))).as("put %d", i).isNull();
        }
        assertThat(all.get(2).requests() + all.get(3).requests()).isGreaterThanOrEqualTo(calls + 2);
    }

    @Test
    void aGatewayThatComesBackIsUsedAgain() throws Exception {
        FakeGateway live = closer.track(FakeGateway.start());
        Address downThenUp = FakeGateway.deadAddress();
        int port = downThenUp.port();
        RattanClient client = closer.track(RattanClient.builder().loadRing(false).gateways(List.of(downThenUp, live.address()))
                .maxRetries(1).backoff(Duration.ofMillis(1), BACKOFF_MAX).build());
        Id key = RattanClient.key("k");
        for (int i = 0; i < 2; i++) {
            assertThat(succeeds(client.put(key, utf8("v" + i), TTL))).isNull();
        }
        assertThat(client.runtime().gateway(0).isSuspended()).as("refused, so suspended").isTrue();

        // The gateway comes back on the same port: a probe's connection opens and ends the suspension.
        FakeGateway back = closer.track(FakeGateway.startOn(port));
        await().atMost(WAIT).pollInterval(Duration.ofMillis(50)).until(() -> {
            client.put(key, utf8("again"), TTL).get(WAIT.toSeconds(), TimeUnit.SECONDS);
            return back.requests() > 0;
        });
        assertThat(client.runtime().gateway(0).isSuspended()).isFalse();
    }

    @Test
    void anAttemptTakenDownByAnotherAttemptsSilenceDoesNotSpendARetry() throws Exception {
        // A stalled gateway (it reads requests and answers none) and a live one; no retries at all. No ring load
        // either: its answer on the stalled gateway's connection would make that connection not silent.
        FakeGateway stalled = closer.track(FakeGateway.start()).mode(FakeGateway.Mode.DROP);
        FakeGateway live = closer.track(FakeGateway.start());
        RattanClient client = closer.track(RattanClient.builder().loadRing(false).gateways(List.of(stalled.address(), live.address()))
                .maxRetries(0).attemptTimeout(Duration.ofSeconds(1)).totalTimeout(WAIT)
                .backoff(Duration.ofMillis(1), BACKOFF_MAX).build());
        ClientRuntime runtime = client.runtime();
        long deadline = System.nanoTime() + WAIT.toNanos();
        ClientGet request = ClientGet.of(RattanClient.key("k"), GetOptions.of(RoutingMode.DELAY_AWARE))
                .page(16, Bytes.EMPTY);
        // Both calls start at the stalled gateway, on its one connection; the second well within its own timeout
        // when the first's runs out and the client closes the silent connection under both.
        CompletableFuture<GetResult> first = runtime.submit(Op.GET, request, deadline, Replies::getPage, 0);
        await().atMost(WAIT).until(() -> stalled.requests() == 1);
        Thread.sleep(300);
        CompletableFuture<GetResult> second = runtime.submit(Op.GET, request, deadline, Replies::getPage, 0);
        await().atMost(WAIT).until(() -> stalled.requests() == 2);

        assertThat(succeeds(first)).as("the first timed out, with no retry").contains("TIMEOUT");
        // The second did not time out: the close took it down. It goes on to the live gateway, retries or not.
        assertThat(succeeds(second)).isNull();
        assertThat(live.requests()).isEqualTo(1);
    }

    /** Null when {@code future} succeeds; the failure's message otherwise, for the assertion's report. */
    private static String succeeds(CompletableFuture<?> future) throws Exception {
        try {
            future.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            return null;
        } catch (ExecutionException e) {
            return String.valueOf(e.getCause());
        }
    }


    private static byte[] utf8(String s) {
        return s.getBytes(UTF_8);
    }

}
