package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Address;
import io.rattan.api.Bytes;
import io.rattan.api.GetOptions;
import io.rattan.api.Id;
import io.rattan.api.RoutingMode;
import io.rattan.api.Status;
import io.rattan.core.msg.ClientMessages.ClientGet;
import io.rattan.core.msg.ClientMessages.ClientPut;
import io.rattan.core.msg.ClientMessages.IterativeGet;
import io.rattan.core.msg.ClientMessages.IterativeGetReply;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.MembershipMessages.HopAck;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import io.rattan.core.msg.RequestMessages.GetReply;
import io.rattan.core.msg.RequestMessages.GetRequest;
import io.rattan.core.msg.RequestMessages.PutReply;
import io.rattan.core.msg.RequestMessages.ValueEntry;
import io.rattan.core.testing.PlantedBugs;
import io.rattan.core.virtual.VirtualWorld;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Gets answered out of turn (issue 39, item 1, gets), in virtual time: 12 nodes, k = 3, and the key's fourth-closest
 * node lies with a value nobody put. Mostly the gateway is cut off from the key's replicas (every message between them
 * is lost): it knows the three it comes to suspect are closer ({@link GetAnswerCheck} counts suspects) and refuses the
 * liar's answer, {@code UNAVAILABLE}, at once or at the deadline. Or the liar answers both the gateway's first two asks
 * first: the second answer, out of turn again, is set aside too, and a third ask reads the put value. With the check
 * planted off, the forged value is the get's answer.
 */
class OutOfTurnAnswerTest {

    private static final long MILLI = 1_000_000L;
    private static final Bytes TRUE_VALUE = Bytes.utf8("put by a client");
    private static final Bytes FORGED = Bytes.utf8("nobody put this");

    /** How the liar's answer reaches the gateway. */
    private enum Path {
        /** A routed get, routed past the replicas (each suspected in turn) to the liar, which answers it. */
        ROUTED_PAST,
        /**
         * A routed get, answered by the liar as soon as the gateway sends its first hop, while the gateway still takes
         * the replicas for reachable: the answer is set aside, and the second ask goes unanswered.
         */
        ROUTED_AT_ONCE,
        /**
         * An iterative get asking four nodes at once (the replicas and the liar): the liar's answer is set aside, the
         * replicas time out, are suspected and asked once more, and time out again.
         */
        ITERATIVE,
        /**
         * No message lost: the liar answers the first two gets the gateway sends, its first ask and its second, before
         * the replicas do (as when a second ask is routed back to it).
         */
        TWICE
    }

    @Test
    void aValueFromTheNextNodeOutIsRefusedWhenEveryReplicaIsSuspected() {
        assertRefusedOnlyWhenChecked(Path.ROUTED_PAST);
    }

    @Test
    void aValueSetAsideIsRefusedAtTheDeadlineOnceEveryReplicaHasComeToBeSuspected() {
        assertRefusedOnlyWhenChecked(Path.ROUTED_AT_ONCE);
    }

    @Test
    void anIterativeGetRefusesTheValueSetAsideWhenItsLookupRunsOutOnSuspects() {
        assertRefusedOnlyWhenChecked(Path.ITERATIVE);
    }

    @Test
    void aSecondAnswerOutOfTurnFromTheSameNodeIsSetAsideAndAThirdAskReadsThePutValue() {
        assertThat(getPastTheReplicas(PlantedBugs.NONE, Path.TWICE)).isInstanceOfSatisfying(GetReply.class,
                g -> assertThat(g.values()).extracting(ValueEntry::value).containsExactly(TRUE_VALUE));
        assertThat(getPastTheReplicas(PlantedBugs.of(PlantedBugs.Bug.GET_ANSWERS_UNCHECKED), Path.TWICE))
                .isInstanceOfSatisfying(GetReply.class,
                        g -> assertThat(g.values()).extracting(ValueEntry::value).containsExactly(FORGED));
    }

    private static void assertRefusedOnlyWhenChecked(Path path) {
        Message checked = getPastTheReplicas(PlantedBugs.NONE, path);
        assertThat(checked).isInstanceOfSatisfying(ErrorReply.class,
                e -> assertThat(e.status()).isEqualTo(Status.UNAVAILABLE));

        Message unchecked = getPastTheReplicas(PlantedBugs.of(PlantedBugs.Bug.GET_ANSWERS_UNCHECKED), path);
        assertThat(unchecked).isInstanceOfSatisfying(GetReply.class,
                g -> assertThat(g.values()).extracting(ValueEntry::value).containsExactly(FORGED));
    }

    private static Message getPastTheReplicas(PlantedBugs bugs, Path path) {
        NodeConfig config = NodeConfig.defaults().withReplicas(3, 2);
        VirtualWorld world = new VirtualWorld(7, config, (from, to, random) -> 5 * MILLI);
        world.enableFaults(1_000, bugs);
        world.addNodes(12);
        world.runFor(Math.max(5_000L, config.settlingMillis()) * MILLI);
        Id key = Id.ofName("cut-off");
        List<Integer> order = IterativeGatewayTest.byDistance(world, key);
        int gateway = order.get(order.size() - 1);
        int liar = order.get(3);
        Message put = world.request(order.get(4), new ClientPut(key, TRUE_VALUE, 3600, Bytes.EMPTY));
        assertThat(((PutReply) put).status()).isEqualTo(Status.OK);

        Address gatewayAt = world.contact(gateway).address();
        Address liarAt = world.contact(liar).address();
        Set<Address> replicas = new HashSet<>();
        order.subList(0, 3).forEach(i -> replicas.add(world.contact(i).address()));
        int[] forged = {0};
        world.network().interception((to, e) -> {
            Address from = e.sender().address();
            boolean forgeNow = forged[0] < (path == Path.TWICE ? 2 : path == Path.ROUTED_AT_ONCE ? 1 : 0);
            if (forgeNow && from.equals(gatewayAt) && e.body() instanceof GetRequest g) {
                forged[0]++;
                forge(world, liar, g.origin().address(), g.originRequestId(), g.hops() + 1);
            }
            if (path == Path.TWICE) {
                return false;
            }
            if (to.equals(gatewayAt) && replicas.contains(from) || replicas.contains(to) && from.equals(gatewayAt)) {
                return true;
            }
            if (!to.equals(liarAt)) {
                return false;
            }
            if (path == Path.ITERATIVE && e.body() instanceof IterativeGet) {
                world.network().transportFor(to).send(from, new Envelope(world.contact(liar), e.requestId(),
                        new IterativeGetReply(Status.OK, true, List.of(new ValueEntry(FORGED, 600_000)), Bytes.EMPTY,
                                List.of())));
                return true;
            }
            if (path != Path.ROUTED_PAST || !(e.body() instanceof GetRequest g)) {
                return false;
            }
            world.network().transportFor(to).send(from, new Envelope(world.contact(liar), e.requestId(),
                    new HopAck()));
            forge(world, liar, g.origin().address(), g.originRequestId(), g.hops() + 1);
            return true;
        });
        return world.request(gateway, path == Path.ITERATIVE ? new ClientGet(key, 0, Bytes.EMPTY, false,
                GetOptions.of(RoutingMode.ITERATIVE).withParallelism(4)) : ClientGet.of(key));
    }

    private static void forge(VirtualWorld world, int liar, Address to, long requestId, int hops) {
        world.network().transportFor(world.contact(liar).address()).send(to, new Envelope(world.contact(liar),
                requestId, new GetReply(Status.OK, List.of(new ValueEntry(FORGED, 600_000)), Bytes.EMPTY, hops, "")));
    }
}
