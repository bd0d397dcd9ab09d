package io.rattan.client;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rattan.api.Address;
import io.rattan.api.Consistency;
import io.rattan.api.Cost;
import io.rattan.api.GetOptions;
import io.rattan.api.Id;
import io.rattan.api.RoutingMode;
import io.rattan.api.Status;
import io.rattan.core.msg.ClientMessages.ClientGet;
import io.rattan.core.net.Contact;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link RattanClient#get(Id, GetOptions)}: races through several gateways, hedging, cost, over real sockets. */
class RattanClientGetOptionsTest {

    private static final Duration TTL = Duration.ofMinutes(10);
    private static final Duration WAIT = Duration.ofSeconds(20);

    @RegisterExtension
    final Closer closer = new Closer();


    private List<FakeGateway> gateways(int n, FakeGateway.Store store) throws InterruptedException {
        List<FakeGateway> gs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            gs.add(closer.track(FakeGateway.start(store)));
        }
        return gs;
    }

    private RattanClient.Builder builder(List<FakeGateway> gateways) {
        RattanClient.Builder b = RattanClient.builder().loadRing(false).backoff(Duration.ofMillis(1), Duration.ofMillis(20));
        for (FakeGateway g : gateways) {
            b.gateway(g.address());
        }
        return b;
    }

    private RattanClient client(RattanClient.Builder builder) {
        return closer.track(builder.build());
    }

    private static <T> T valueOf(CompletableFuture<T> future) throws Exception {
        return future.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }

    private static long gets(FakeGateway g) {
        return g.requests(ClientGet.class);
    }

    @Test
    void gCopiesGoToGDifferentGatewaysAndTheValueComesBackWithItsCost() throws Exception {
        List<FakeGateway> gs = gateways(3, new FakeGateway.Store());
        RattanClient client = client(builder(gs));
        Id key = RattanClient.key("raced");
        // Three puts, round-robin: every gateway's connection is open before the race, so each copy is written.
        for (int i = 0; i < 3; i++) {
            client.putSync(key, "v".getBytes(UTF_8), TTL);
        }

        GetResult r = client.getSync(key, GetOptions.of(RoutingMode.GREEDY).withGateways(3));

        assertThat(r.values()).extracting(GetResult.Value::utf8).containsExactly("v");
        assertThat(r.cost()).isEqualTo(FakeGateway.PAGE_COST);
        assertThat(r.hops()).isEqualTo(1);
        // Copies are cancelled once one wins, but each had already been sent, one per gateway.
        await().atMost(WAIT).until(() -> gs.stream().mapToLong(RattanClientGetOptionsTest::gets).sum() == 3);
        assertThat(gs).allSatisfy(g -> {
            assertThat(gets(g)).isEqualTo(1);
            ClientGet sent = (ClientGet) g.received().stream().filter(ClientGet.class::isInstance).findFirst()
                    .orElseThrow();
            assertThat(sent.routing()).isEqualTo(RoutingMode.GREEDY);
        });
        await().atMost(WAIT).until(() -> client.requestsInFlight() == 0);
    }

    @Test
    void aRaceIsWonByTheCopyWhoseGatewayAnswers() throws Exception {
        FakeGateway.Store store = new FakeGateway.Store();
        List<FakeGateway> gs = gateways(2, store);
        gs.get(0).mode(FakeGateway.Mode.DROP);
        // Attempts never time out within the test: only the other copy can answer.
        RattanClient client = client(builder(gs).attemptTimeout(Duration.ofMinutes(1))
                .totalTimeout(Duration.ofMinutes(1)));
        Id key = RattanClient.key("one silent");
        RattanClient direct = client(builder(List.of(gs.get(1))));
        direct.putSync(key, "v".getBytes(UTF_8), TTL);

        GetResult r = valueOf(client.get(key, GetOptions.of(RoutingMode.DELAY_AWARE).withGateways(2)));

        assertThat(r.values()).extracting(GetResult.Value::utf8).containsExactly("v");
        await().atMost(WAIT).until(() -> client.requestsInFlight() == 0);
    }

    @Test
    void theHedgeCopyRescuesAGetStuckAtASilentGateway() throws Exception {
        FakeGateway.Store store = new FakeGateway.Store();
        List<FakeGateway> gs = gateways(2, store);
        gs.get(0).mode(FakeGateway.Mode.DROP);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        // Without the hedge, a get that starts at the silent gateway would fail at the total timeout.
        RattanClient client = client(builder(gs).attemptTimeout(Duration.ofMinutes(1))
                .totalTimeout(Duration.ofSeconds(15)).meterRegistry(registry));
        Id key = RattanClient.key("hedged");
        client(builder(List.of(gs.get(1)))).putSync(key, "v".getBytes(UTF_8), TTL);

        // Round-robin: of two consecutive gets, one starts at each gateway.
        for (int i = 0; i < 2; i++) {
            GetResult r = valueOf(client.get(key, GetOptions.defaults()));
            assertThat(r.values()).extracting(GetResult.Value::utf8).containsExactly("v");
        }
        assertThat(gets(gs.get(0))).isGreaterThanOrEqualTo(1);
        assertThat(registry.get(ClientMetrics.HEDGES).counter().count()).isGreaterThanOrEqualTo(1);
    }

    @Test
    void aQuorumGetCarriesItsRAndAPartialAnswerIsFlaggedNotFailed() throws Exception {
        FakeGateway gw = closer.track(FakeGateway.start());
        RattanClient client = client(builder(List.of(gw)));
        Id key = RattanClient.key("quorum");
        client.putSync(key, "v".getBytes(UTF_8), TTL);

        GetResult full = client.getSync(key, GetOptions.of(RoutingMode.GREEDY).withQuorum(3));

        ClientGet sent = (ClientGet) gw.received().stream().filter(ClientGet.class::isInstance).findFirst()
                .orElseThrow();
        assertThat(sent.options().consistency()).isEqualTo(Consistency.QUORUM);
        assertThat(sent.options().readReplicas()).isEqualTo(3);
        assertThat(full.values()).extracting(GetResult.Value::utf8).containsExactly("v");
        assertThat(full.partial()).isFalse();

        // Hedged, so raced: a partial answer wins the race as an answer, flagged.
        gw.quorumStatus(Status.PARTIAL);
        GetResult partial = client.getSync(key, GetOptions.defaults().withQuorum(0));
        assertThat(partial.values()).extracting(GetResult.Value::utf8).containsExactly("v");
        assertThat(partial.partial()).isTrue();
        assertThat(client.getSync(key, GetOptions.defaults()).partial()).as("a get of one replica").isFalse();
    }

    @Test
    void quorumOptionsAreCheckedWhenMade() {
        assertThat(GetOptions.defaults().quorum()).isFalse();
        assertThat(GetOptions.defaults().withQuorum(2).withConsistencyOne().readReplicas()).isZero();
        assertThatThrownBy(() -> GetOptions.of(RoutingMode.ITERATIVE).withQuorum(3))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cannot be iterative");
        assertThatThrownBy(() -> GetOptions.defaults().withQuorum(GetOptions.READ_REPLICAS_MAX + 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("r must be between 1 and 33");
        assertThatThrownBy(() -> new GetOptions(RoutingMode.GREEDY, 0, 1, false, false, Consistency.ONE, 2))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("use it with consistency=quorum");
    }

    @Test
    void iterativeRoutingAndItsParallelismTravelToTheGateway() throws Exception {
        FakeGateway gw = closer.track(FakeGateway.start());
        RattanClient client = client(builder(List.of(gw)));

        client.getSync(RattanClient.key("k"), GetOptions.of(RoutingMode.ITERATIVE).withParallelism(5));

        ClientGet sent = (ClientGet) gw.received().get(0);
        assertThat(sent.routing()).isEqualTo(RoutingMode.ITERATIVE);
        assertThat(sent.options().parallelism()).isEqualTo(5);
    }

    @Test
    void aOneHopGetGoesStraightToAReplicaTheAnswersNamedAndRoutesAroundOneThatFails() throws Exception {
        OneReplica setUp = oneReplica();
        FakeGateway configured = setUp.configured();
        FakeGateway replica = setUp.replica();
        RattanClient client = setUp.client();
        Id key = setUp.key();
        GetOptions oneHop = GetOptions.of(RoutingMode.DELAY_AWARE).withOneHop(true);

        assertThat(client.getSync(key, oneHop).hops()).as("the image is empty: routed").isEqualTo(2);
        assertThat(client.getSync(key, oneHop).hops()).as("straight to the replica").isZero();
        assertThat(client.getSync(key, oneHop).values()).extracting(GetResult.Value::utf8).containsExactly("v");

        assertThat(replica.received()).filteredOn(ClientGet.class::isInstance).hasSize(2)
                .allSatisfy(m -> assertThat(((ClientGet) m).wantHolders()).isTrue())
                .allSatisfy(m -> assertThat(((ClientGet) m).options().oneHop()).as("not the gateway's image").isFalse());
        assertThat(configured.received()).filteredOn(ClientGet.class::isInstance).hasSize(1);

        replica.close();
        assertThat(client.getSync(key, oneHop).values()).as("routed around the replica that failed")
                .extracting(GetResult.Value::utf8).containsExactly("v");
        assertThat(configured.received()).filteredOn(ClientGet.class::isInstance).hasSize(2);
    }

    @Test
    void aReplicaThatForwardsAKeyIsNotAskedForItAgain() throws Exception {
        EdgeAndReplica setUp = edgeAndReplica("edge");
        FakeGateway forwarding = setUp.forwarding();
        FakeGateway answering = setUp.answering();
        RattanClient client = setUp.client();
        Id key = setUp.key();
        GetOptions oneHop = GetOptions.of(RoutingMode.DELAY_AWARE).withOneHop(true);

        assertThat(client.getSync(key, oneHop).hops()).as("the image is empty: routed").isEqualTo(2);
        assertThat(client.getSync(key, oneHop).hops()).as("the nearest holder first: it forwards").isEqualTo(1);
        for (int i = 0; i < 3; i++) {
            assertThat(client.getSync(key, oneHop).hops()).as("to the replica that answers itself").isZero();
        }
        assertThat(forwarding.received()).filteredOn(ClientGet.class::isInstance).hasSize(1);
        assertThat(answering.received()).filteredOn(ClientGet.class::isInstance).hasSize(3);
    }

    @Test
    void aCopyThatLostTheRaceStillTeachesTheImageWhereItsReplicaAnswers() throws Exception {
        EdgeAndReplica setUp = edgeAndReplica("late");
        FakeGateway forwarding = setUp.forwarding();
        RattanClient client = setUp.client();
        Id key = setUp.key();
        GetOptions oneHopHedged = GetOptions.defaults().withOneHop(true);
        assertThat(client.getSync(key, oneHopHedged).hops()).as("the image is empty: routed").isEqualTo(2);

        // The nearest holder is asked first and forwards, slowly: the hedge to the other replica wins the race.
        forwarding.hold(true);
        assertThat(client.getSync(key, oneHopHedged).hops()).as("the hedge's answer").isZero();
        await().atMost(WAIT).until(() -> forwarding.received().stream().anyMatch(ClientGet.class::isInstance));
        forwarding.releaseHeldInReverse();
        await().atMost(WAIT).until(() -> client.requestsInFlight() == 0);

        // Its forward, answered after the race, was learned: it is not asked for the key again.
        for (int i = 0; i < 3; i++) {
            assertThat(client.getSync(key, oneHopHedged).hops()).as("to the replica that answers itself").isZero();
        }
        assertThat(forwarding.received()).filteredOn(ClientGet.class::isInstance).hasSize(1);
    }

    @Test
    void aBadRequestEndsAHedgedGetWithoutAHedge() throws Exception {
        List<FakeGateway> gs = gateways(2, new FakeGateway.Store());
        gs.forEach(g -> g.failNext(1, Status.BAD_REQUEST));
        // A fresh client hedges after its cap (500 ms): before the fix the hedge went out at once, on the refusal.
        RattanClient client = client(builder(gs));

        assertThat(failureOf(client.get(RattanClient.key("k"), GetOptions.defaults()))).isEqualTo(Status.BAD_REQUEST);
        assertThat(gets(gs.get(0)) + gets(gs.get(1))).as("one copy, no hedge").isEqualTo(1);
    }

    @Test
    void aBadRequestAtAReplicasGatewayEndsAOneHopGetAndTheReplicaIsKept() throws Exception {
        OneReplica setUp = oneReplica();
        FakeGateway configured = setUp.configured();
        FakeGateway replica = setUp.replica();
        RattanClient client = setUp.client();
        Id key = setUp.key();
        GetOptions oneHopHedged = GetOptions.defaults().withOneHop(true);
        assertThat(client.getSync(key, oneHopHedged).hops()).as("the image is empty: routed").isEqualTo(2);

        replica.failNext(1, Status.BAD_REQUEST);
        assertThat(failureOf(client.get(key, oneHopHedged))).isEqualTo(Status.BAD_REQUEST);
        assertThat(configured.received()).as("neither re-routed nor hedged").filteredOn(ClientGet.class::isInstance)
                .hasSize(1);
        assertThat(client.getSync(key, oneHopHedged).hops()).as("the replica is still in the image").isZero();
    }

    /** A configured gateway that names one replica, whose gateway the client is not given; a value put under key. */
    private record OneReplica(FakeGateway configured, FakeGateway replica, RattanClient client, Id key) {
    }

    /** Two named holders of a key; the nearer one forwards (as the replica at the edge of a small leaf set does). */
    private record EdgeAndReplica(FakeGateway forwarding, FakeGateway answering, RattanClient client, Id key) {
    }

    /** A configured gateway naming both holders, whose gateways the client is not given; a value put under key. */
    private EdgeAndReplica edgeAndReplica(String keyName) throws Exception {
        FakeGateway.Store store = new FakeGateway.Store();
        FakeGateway configured = closer.track(FakeGateway.start(store));
        Id key = RattanClient.key(keyName);
        FakeGateway forwarding = closer.track(FakeGateway.start(store));
        FakeGateway answering = closer.track(FakeGateway.start(store));
        Contact edge = new Contact(key.plus(new Id(0, 0, 1)), new Address("127.0.0.1", 1),
                forwarding.address().port());
        Contact replica = new Contact(key.plus(new Id(0, 0, 3)), new Address("127.0.0.1", 2),
                answering.address().port());
        configured.holders(List.of(edge, replica), 2);
        forwarding.holders(List.of(edge, replica), 1);
        answering.holders(List.of(edge, replica), 0);
        RattanClient client = client(builder(List.of(configured)));
        client.putSync(key, "v".getBytes(UTF_8), TTL);
        return new EdgeAndReplica(forwarding, answering, client, key);
    }

    private OneReplica oneReplica() throws Exception {
        FakeGateway.Store store = new FakeGateway.Store();
        FakeGateway configured = closer.track(FakeGateway.start(store));
        // Not given to the client: it learns this one from the holders the configured gateway names.
        FakeGateway replica = closer.track(FakeGateway.start(store));
        Contact named = new Contact(Id.ofName("replica"), new Address("127.0.0.1", 1), replica.address().port());
        configured.holders(List.of(named), 2);
        replica.holders(List.of(named), 0);
        RattanClient client = client(builder(List.of(configured)));
        Id key = RattanClient.key("k");
        client.putSync(key, "v".getBytes(UTF_8), TTL);
        return new OneReplica(configured, replica, client, key);
    }

    private static Status failureOf(CompletableFuture<GetResult> f) throws Exception {
        try {
            f.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            throw new AssertionError("the get succeeded");
        } catch (ExecutionException e) {
            assertThat(e.getCause()).isInstanceOf(RattanException.class);
            return ((RattanException) e.getCause()).status();
        }
    }

    @Test
    void costIsSummedOverPages() throws Exception {
        FakeGateway gw = closer.track(FakeGateway.start()).pageValuesMax(1);
        RattanClient client = client(builder(List.of(gw)));
        Id key = RattanClient.key("paged");
        for (String v : List.of("a", "b", "c")) {
            client.putSync(key, v.getBytes(UTF_8), TTL);
        }

        GetResult r = client.getSync(key, GetOptions.of(RoutingMode.GREEDY).withGateways(2));

        assertThat(r.values()).hasSize(3);
        assertThat(r.pages()).isEqualTo(3);
        assertThat(r.cost()).isEqualTo(new Cost(3 * FakeGateway.PAGE_COST.messages(),
                3 * FakeGateway.PAGE_COST.bytes()));
        assertThat(client.getSync(key).cost()).as("the plain get reports cost too").isEqualTo(r.cost());
    }

    @Test
    void whenEveryCopyFailsTheGetFailsWithTheLastFailure() throws Exception {
        List<FakeGateway> gs = gateways(2, new FakeGateway.Store());
        gs.forEach(g -> g.mode(FakeGateway.Mode.UNAVAILABLE));
        RattanClient client = client(builder(gs).maxRetries(0));

        CompletableFuture<GetResult> f = client.get(RattanClient.key("k"),
                GetOptions.of(RoutingMode.GREEDY).withGateways(2));

        try {
            f.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            throw new AssertionError("the get succeeded");
        } catch (ExecutionException e) {
            assertThat(e.getCause()).isInstanceOf(RattanException.class);
            assertThat(((RattanException) e.getCause()).status()).isEqualTo(Status.UNAVAILABLE);
        }
        assertThat(gs).allSatisfy(g -> assertThat(gets(g)).isEqualTo(1));
        await().atMost(WAIT).until(() -> client.requestsInFlight() == 0);
    }

    @Test
    void cancellingARacedGetCancelsEveryCopy() throws Exception {
        List<FakeGateway> gs = gateways(2, new FakeGateway.Store());
        gs.forEach(g -> g.mode(FakeGateway.Mode.DROP));
        RattanClient client = client(builder(gs).attemptTimeout(Duration.ofMinutes(1))
                .totalTimeout(Duration.ofMinutes(1)));

        CompletableFuture<GetResult> f = client.get(RattanClient.key("k"),
                GetOptions.of(RoutingMode.GREEDY).withGateways(2));
        await().atMost(WAIT).until(() -> gets(gs.get(0)) + gets(gs.get(1)) == 2);
        assertThat(client.requestsInFlight()).isEqualTo(2);
        f.cancel(false);

        await().atMost(WAIT).until(() -> client.requestsInFlight() == 0);
        assertThat(f).isCancelled();
    }

    @Test
    void copiesBeyondTheConfiguredGatewaysShareThem() throws Exception {
        FakeGateway gw = closer.track(FakeGateway.start());
        RattanClient client = client(builder(List.of(gw)));
        Id key = RattanClient.key("shared");
        client.putSync(key, "v".getBytes(UTF_8), TTL);

        GetResult r = client.getSync(key, GetOptions.of(RoutingMode.GREEDY).withGateways(2));

        assertThat(r.values()).extracting(GetResult.Value::utf8).containsExactly("v");
        await().atMost(WAIT).until(() -> gets(gw) == 2);
    }
}
