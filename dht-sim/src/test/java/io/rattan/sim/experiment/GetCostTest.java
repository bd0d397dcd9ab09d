package io.rattan.sim.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.core.codec.MessageCodec;
import io.rattan.core.id.Id;
import io.rattan.core.msg.Cost;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.Messages.ClientGet;
import io.rattan.core.msg.Messages.ClientPut;
import io.rattan.core.msg.Messages.GetReply;
import io.rattan.core.msg.Messages.PutReply;
import io.rattan.core.msg.RoutingMode;
import io.rattan.core.msg.Status;
import io.rattan.core.net.Contact;
import io.rattan.core.node.NodeConfig;
import io.rattan.core.util.Bytes;
import io.rattan.core.virtual.LatencyModel;
import io.rattan.core.virtual.VirtualWorld;
import io.rattan.sim.net.WideAreaLatencyModel;
import org.junit.jupiter.api.Test;

/**
 * The simulator charges a get everything it caused, and in a quiet world that is exactly the hand count: the
 * client's request to its gateway, a forward and an ack per hop, the replica's reply to the gateway, and the
 * gateway's answer to the client, each at its encoded size plus the header allowance.
 */
class GetCostTest {

    @Test
    void aGetIsChargedExactlyItsHandCountedMessagesAndBytes() {
        VirtualWorld world = new VirtualWorld(5, NodeConfig.defaults().withReplicas(4, 2),
                LatencyModel.constant(10_000_000L));
        world.addNodes(80);
        CostMeter meter = new CostMeter(world.scheduler(), 20);
        world.network().observer(meter);
        SimClients clients = new SimClients(world, 20_000_000_000L);
        MessageCodec codec = new MessageCodec();
        int routed = 0;
        for (int i = 1; i <= 20; i++) {
            Id key = Id.ofName("cost-" + i);
            Message put = world.request(i, new ClientPut(key, Bytes.utf8("v" + i), 600, Bytes.EMPTY));
            assertThat(((PutReply) put).status()).isEqualTo(Status.OK);
            world.runFor(2_000_000_000L);

            int client = 30 + i;
            int cause = i;
            ClientGet get = new ClientGet(key, RoutingMode.DELAY_AWARE, 0, Bytes.EMPTY);
            Message[] reply = new Message[1];
            world.scheduler().execute(() -> {
                world.scheduler().cause(cause);
                clients.send(client, client, get, m -> reply[0] = m);
            });
            world.runUntil(() -> reply[0] != null, 30_000_000_000L);
            world.runFor(2_000_000_000L);
            GetReply g = (GetReply) reply[0];

            long clientLegBytes = codec.encodedSize(new Envelope(new Contact(Id.ZERO,
                    WideAreaLatencyModel.clientAddress(client)), 1, get)) + codec.encodedSize(new Envelope(null, 1, g))
                    + 2L * Cost.HEADER_BYTES;
            int pathMessages = g.hops() == 0 ? 0 : 2 * g.hops() + 1;
            assertThat(meter.messages(cause)).isEqualTo(2 + pathMessages);
            assertThat(g.cost().messages()).isEqualTo(pathMessages);
            assertThat(meter.bytes(cause)).isEqualTo(clientLegBytes + g.cost().bytes());
            routed += g.hops() >= 1 ? 1 : 0;
        }
        assertThat(routed).as("gets that left their gateway").isGreaterThanOrEqualTo(5);
    }
}
