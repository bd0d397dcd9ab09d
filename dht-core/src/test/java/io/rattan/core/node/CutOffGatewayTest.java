package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Address;
import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.core.msg.ClientMessages.ClientGet;
import io.rattan.core.msg.ClientMessages.ClientPut;
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
 * A routed get whose gateway is cut off from the key's replicas (issue 39, item 1, gets), in virtual time: 12 nodes,
 * k = 3; every message between the gateway and the key's three replicas is lost, so the gateway routes the get past
 * them, suspecting each in turn, to the key's fourth-closest node, which lies with a value nobody put. The gateway
 * knows the three it suspects are closer ({@link GetAnswerCheck} counts suspects) and refuses the answer,
 * {@code UNAVAILABLE}; with the check planted off, the forged value is the get's answer.
 */
class CutOffGatewayTest {

    private static final long MILLI = 1_000_000L;
    private static final Bytes TRUE_VALUE = Bytes.utf8("put by a client");
    private static final Bytes FORGED = Bytes.utf8("nobody put this");

    @Test
    void aValueFromTheNextNodeOutIsRefusedWhenEveryReplicaIsSuspected() {
        Message checked = getPastTheReplicas(PlantedBugs.NONE);
        assertThat(checked).isInstanceOfSatisfying(ErrorReply.class,
                e -> assertThat(e.status()).isEqualTo(Status.UNAVAILABLE));

        Message unchecked = getPastTheReplicas(PlantedBugs.of(PlantedBugs.Bug.GET_ANSWERS_UNCHECKED));
        assertThat(unchecked).isInstanceOfSatisfying(GetReply.class,
                g -> assertThat(g.values()).extracting(ValueEntry::value).containsExactly(FORGED));
    }

    private static Message getPastTheReplicas(PlantedBugs bugs) {
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
        world.network().interception((to, e) -> {
            Address from = e.sender().address();
            if (to.equals(gatewayAt) && replicas.contains(from) || replicas.contains(to) && from.equals(gatewayAt)) {
                return true;
            }
            if (!to.equals(liarAt) || !(e.body() instanceof GetRequest g)) {
                return false;
            }
            world.network().transportFor(to).send(from, new Envelope(world.contact(liar), e.requestId(),
                    new HopAck()));
            world.network().transportFor(to).send(g.origin().address(), new Envelope(world.contact(liar),
                    g.originRequestId(), new GetReply(Status.OK, List.of(new ValueEntry(FORGED, 600_000)),
                    Bytes.EMPTY, g.hops() + 1, "")));
            return true;
        });
        return world.request(gateway, ClientGet.of(key));
    }
}
