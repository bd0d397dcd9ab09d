package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Address;
import io.rattan.api.Bytes;
import io.rattan.api.Cost;
import io.rattan.api.GetOptions;
import io.rattan.api.Id;
import io.rattan.api.RoutingMode;
import io.rattan.api.Status;
import io.rattan.core.client.OneHopImage;
import io.rattan.core.codec.MessageCodec;
import io.rattan.core.msg.ClientMessages.ClientGet;
import io.rattan.core.msg.ClientMessages.ClientPut;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.MessageType;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import io.rattan.core.msg.RequestMessages.GetReply;
import io.rattan.core.msg.RequestMessages.PutReply;
import io.rattan.core.virtual.LatencyModel;
import io.rattan.core.virtual.VirtualWorld;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Iterative gets, gets started at several nodes, and the cost a get reports, on 120 nodes in the virtual world
 * (10 ms per message, nobody slow, so no timeouts).
 */
class GetStrategiesTest {

    private static final Set<MessageType> GET_TRAFFIC = Set.of(MessageType.GET_REQUEST, MessageType.HOP_ACK,
            MessageType.GET_REPLY);

    private VirtualWorld world;
    private final List<Id> keys = new ArrayList<>();
    private final List<Bytes> values = new ArrayList<>();
    private final MessageCodec codec = new MessageCodec();
    // Per gateway address: iterative questions out minus answers back, and the most ever out at once.
    private final Map<Address, int[]> inFlight = new HashMap<>();
    private long getTrafficMessages;
    private long getTrafficBytes;

    @BeforeEach
    void world() {
        world = new VirtualWorld(11, NodeConfig.defaults().withReplicas(4, 2), LatencyModel.constant(10_000_000L));
        world.addNodes(120);
        for (int i = 0; i < 20; i++) {
            Id key = Id.ofName("key-" + i);
            Bytes value = Bytes.utf8("value-" + i);
            Message put = world.request(i, new ClientPut(key, value, 3600, Bytes.EMPTY));
            assertThat(((PutReply) put).status()).isEqualTo(Status.OK);
            keys.add(key);
            values.add(value);
        }
        // Past the settling window (GetAnswers.settled): the gets below are counted hop by hop as a settled view
        // serves them, by one replica.
        world.runFor(Math.max(5_000L, NodeConfig.defaults().settlingMillis()) * 1_000_000L);
        world.network().observer((from, to, e) -> {
            MessageType t = e.body().type();
            if (t == MessageType.ITERATIVE_GET) {
                int[] f = inFlight.computeIfAbsent(from, a -> new int[2]);
                f[0]++;
                f[1] = Math.max(f[1], f[0]);
            } else if (t == MessageType.ITERATIVE_GET_REPLY) {
                inFlight.get(to)[0]--;
            }
            if (GET_TRAFFIC.contains(t)) {
                getTrafficMessages++;
                getTrafficBytes += codec.encodedSize(e) + Cost.HEADER_BYTES;
            }
        });
    }

    private GetReply get(int gateway, ClientGet get) {
        Message reply = world.request(gateway, get);
        assertThat(reply).isInstanceOf(GetReply.class);
        return (GetReply) reply;
    }

    @Test
    void iterativeGetsFindEveryValueKeepingExactlyPQuestionsInFlight() {
        for (int p : new int[] {1, 3}) {
            inFlight.clear();
            for (int i = 0; i < keys.size(); i++) {
                int gateway = 40 + i;
                GetReply reply = get(gateway, new ClientGet(keys.get(i), 0, Bytes.EMPTY, false, GetOptions.of(RoutingMode.ITERATIVE).withParallelism(p)));
                assertThat(reply.values()).extracting(v -> v.value()).containsExactly(values.get(i));
                // Let late answers to the other questions come in before the next get.
                world.runFor(1_000_000_000L);
            }
            assertThat(inFlight).isNotEmpty();
            for (int[] f : inFlight.values()) {
                assertThat(f[0]).as("questions still out after every get finished").isZero();
                assertThat(f[1]).as("most questions out at once, p = %d", p).isEqualTo(p);
            }
        }
    }

    @Test
    void aRecursiveGetReportsExactlyTheMessagesAndBytesItsPathCarried() {
        int multiHop = 0;
        for (int i = 0; i < keys.size(); i++) {
            getTrafficMessages = 0;
            getTrafficBytes = 0;
            GetReply reply = get(60 + i, ClientGet.of(keys.get(i), GetOptions.of(RoutingMode.GREEDY)));
            // Hand count: each hop is a forward and its ack, then the answering replica's one reply to the gateway.
            int expected = reply.hops() == 0 ? 0 : 2 * reply.hops() + 1;
            assertThat(reply.cost().messages()).isEqualTo(expected).isEqualTo(getTrafficMessages);
            assertThat(reply.cost().bytes()).isEqualTo(getTrafficBytes);
            multiHop += reply.hops() >= 2 ? 1 : 0;
        }
        assertThat(multiHop).as("gets that took two hops or more").isPositive();
    }

    @Test
    void aGetStartedAtSeveralNodesGetsTheValue() {
        for (int i = 0; i < keys.size(); i++) {
            Message[] reply = new Message[1];
            Node gateway = world.node(80 + i);
            ClientGet get = ClientGet.of(keys.get(i), GetOptions.of(RoutingMode.DELAY_AWARE).withGateways(3).withHedge(true));
            world.scheduler().execute(() -> gateway.handleClient(get, m -> reply[0] = m));
            world.runUntil(() -> reply[0] != null, 30_000_000_000L);
            assertThat(reply[0]).isInstanceOf(GetReply.class);
            assertThat(((GetReply) reply[0]).values()).extracting(v -> v.value()).containsExactly(values.get(i));
        }
    }

    @Test
    void aOneHopImageStartingEmptyConvergesAfterCorrections() {
        OneHopImage image = new OneHopImage(1_000);
        Map<Id, Integer> index = new HashMap<>();
        for (int i = 0; i < world.size(); i++) {
            index.put(world.contact(i).id(), i);
        }
        for (int round = 0; round < 2; round++) {
            int direct = 0;
            for (int i = 0; i < keys.size(); i++) {
                Id key = keys.get(i);
                List<io.rattan.core.net.Contact> near = image.closest(key, 1);
                // An empty image sends the get through an arbitrary node; the answer corrects the image.
                int target = near.isEmpty() ? 100 : index.get(near.get(0).id());
                GetReply reply = get(target, new ClientGet(key, 0, Bytes.EMPTY, true, GetOptions.of(RoutingMode.DELAY_AWARE)));
                assertThat(reply.values()).extracting(v -> v.value()).containsExactly(values.get(i));
                assertThat(reply.holders()).hasSize(4);
                image.learn(reply.holders());
                direct += reply.hops() == 0 ? 1 : 0;
            }
            if (round == 0) {
                assertThat(direct).as("gets answered where the image sent them, first round").isLessThan(keys.size());
            } else {
                assertThat(direct).as("after one correction per key, every get goes straight to a replica")
                        .isEqualTo(keys.size());
            }
        }
        for (Id key : keys) {
            List<Integer> live = new ArrayList<>(world.liveIndexes());
            live.sort(java.util.Comparator.comparing((Integer i) -> world.contact(i).id().distanceTo(key)));
            assertThat(image.closest(key, 4)).containsExactlyElementsOf(
                    live.subList(0, 4).stream().map(world::contact).toList());
        }
    }

    @Test
    void aGatewaysOneHopGetsGoStraightToAReplicaOnceItsImageLearnedTheKey() {
        Node gateway = world.node(100);
        for (int round = 0; round < 2; round++) {
            int farther = 0;
            for (int i = 0; i < keys.size(); i++) {
                Message[] reply = new Message[1];
                ClientGet get = ClientGet.of(keys.get(i), GetOptions.of(RoutingMode.DELAY_AWARE).withOneHop(true));
                world.scheduler().execute(() -> gateway.handleClient(get, m -> reply[0] = m));
                world.runUntil(() -> reply[0] != null, 30_000_000_000L);
                assertThat(reply[0]).isInstanceOf(GetReply.class);
                GetReply g = (GetReply) reply[0];
                assertThat(g.values()).extracting(v -> v.value()).containsExactly(values.get(i));
                farther += g.hops() >= 2 ? 1 : 0;
            }
            if (round == 0) {
                assertThat(farther).as("gets that routed two hops or more with an empty image").isPositive();
            } else {
                assertThat(farther).as("gets that did not go straight to a replica once the image knew the key")
                        .isZero();
            }
        }
    }

    private GetReply oneHopGet(Node gateway, Id key) {
        Message[] reply = new Message[1];
        ClientGet get = ClientGet.of(key, GetOptions.of(RoutingMode.DELAY_AWARE).withOneHop(true));
        world.scheduler().execute(() -> gateway.handleClient(get, m -> reply[0] = m));
        world.runUntil(() -> reply[0] != null, 30_000_000_000L);
        assertThat(reply[0]).isInstanceOf(GetReply.class);
        return (GetReply) reply[0];
    }

    @Test
    void aGatewaysHedgedOneHopGetHedgesAfterItsReplicasRoundTripNotAfterTheEndToEndThreshold() {
        Id key = keys.get(3);
        List<Integer> live = new ArrayList<>(world.liveIndexes());
        live.sort(java.util.Comparator.comparing((Integer i) -> world.contact(i).id().distanceTo(key)));
        int gatewayIndex = live.get(live.size() - 1);
        Node gateway = world.node(gatewayIndex);
        Address from = world.contact(gatewayIndex).address();
        // Where and when the gateway sends each get request: its copies.
        List<Address> copyTo = new ArrayList<>();
        List<Long> copyAt = new ArrayList<>();
        world.network().observer((f, to, e) -> {
            if (f.equals(from) && e.body().type() == MessageType.GET_REQUEST) {
                copyTo.add(to);
                copyAt.add(world.scheduler().nanoTime());
            }
        });
        // The first get teaches the image the replicas, the second measures the one it goes to (a 20 ms round trip).
        oneHopGet(gateway, key);
        oneHopGet(gateway, key);
        Address first = copyTo.get(copyTo.size() - 1);
        world.kill(world.liveIndexes().stream().filter(i -> world.contact(i).address().equals(first)).findFirst()
                .orElseThrow());
        copyTo.clear();
        copyAt.clear();

        Message[] reply = new Message[1];
        long started = world.scheduler().nanoTime();
        ClientGet get = ClientGet.of(key, GetOptions.of(RoutingMode.DELAY_AWARE).withHedge(true).withOneHop(true));
        world.scheduler().execute(() -> gateway.handleClient(get, m -> reply[0] = m));
        world.runUntil(() -> reply[0] != null, 30_000_000_000L);

        assertThat(((GetReply) reply[0]).values()).extracting(v -> v.value()).containsExactly(values.get(3));
        assertThat(copyTo.get(0)).as("the first copy still goes to the replica measured fastest").isEqualTo(first);
        // Its hedge waits 1.2 round trips + 5 ms, about 29 ms: well before the end-to-end threshold (500 ms, this
        // gateway has timed too few gets) and before the hop's own timeout (at least 100 ms) would re-route it.
        assertThat(copyAt.get(1) - started).as("virtual nanoseconds until the hedge copy")
                .isBetween(25_000_000L, 35_000_000L);
        assertThat(copyTo.get(1)).isNotEqualTo(first);
    }

    @Test
    void aGatewaysOneHopImageForgetsReplicasThatDied() {
        Id key = keys.get(0);
        List<Integer> live = new ArrayList<>(world.liveIndexes());
        live.sort(java.util.Comparator.comparing((Integer i) -> world.contact(i).id().distanceTo(key)));
        Node gateway = world.node(live.get(live.size() - 1));
        // The first get teaches the image the four replicas; the second goes straight to one and measures it, which
        // puts it first from then on.
        assertThat(oneHopGet(gateway, key).holders()).hasSize(4);
        assertThat(oneHopGet(gateway, key).hops()).isEqualTo(1);
        // All four die, three then one, each time after repair copied the value on; the image, which learns only
        // from answers, still names exactly them. Each later get comes after the gateway forgot them as peers.
        for (int r = 0; r < 3; r++) {
            world.kill(live.get(r));
        }
        world.runFor(30_000_000_000L);
        world.kill(live.get(3));
        for (int i = 0; i < 5; i++) {
            world.runFor(30_000_000_000L);
            assertThat(oneHopGet(gateway, key).values()).extracting(v -> v.value()).containsExactly(values.get(0));
        }
        world.runFor(30_000_000_000L);
        long started = world.scheduler().nanoTime();
        GetReply last = oneHopGet(gateway, key);
        long took = world.scheduler().nanoTime() - started;
        assertThat(last.values()).extracting(v -> v.value()).containsExactly(values.get(0));
        // Straight to a live replica (a 10 ms hop each way), not through a dead one's timeout first.
        assertThat(last.hops()).isEqualTo(1);
        assertThat(took).as("virtual nanoseconds of the last get").isLessThan(world.config().rtoMinMillis() * 1_000_000L);
    }

    @Test
    void anIterativeGetCannotStartAtSeveralNodes() {
        Message reply = world.request(0, ClientGet.of(keys.get(0),
                GetOptions.of(RoutingMode.ITERATIVE).withGateways(2)));
        assertThat(reply).isInstanceOfSatisfying(io.rattan.core.msg.RequestMessages.ErrorReply.class,
                e -> assertThat(e.status()).isEqualTo(Status.BAD_REQUEST));
    }
}
