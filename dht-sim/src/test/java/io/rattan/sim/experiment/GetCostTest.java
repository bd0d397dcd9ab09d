package io.rattan.sim.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Bytes;
import io.rattan.api.Cost;
import io.rattan.api.GetOptions;
import io.rattan.api.Id;
import io.rattan.api.RoutingMode;
import io.rattan.api.Status;
import io.rattan.api.ValueFilter;
import io.rattan.core.codec.MessageCodec;
import io.rattan.core.msg.ClientMessages.ClientGet;
import io.rattan.core.msg.ClientMessages.ClientPut;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.MembershipMessages.HopAck;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.MessageType;
import io.rattan.core.msg.RequestMessages.GetReply;
import io.rattan.core.msg.RequestMessages.GetRequest;
import io.rattan.core.msg.RequestMessages.PutReply;
import io.rattan.core.msg.RequestMessages.ValueEntry;
import io.rattan.core.net.Contact;
import io.rattan.core.node.NodeConfig;
import io.rattan.core.virtual.LatencyModel;
import io.rattan.core.virtual.VirtualWorld;
import io.rattan.sim.net.WideAreaLatencyModel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The simulator charges a get everything it caused, and in a quiet world that is exactly the hand count: the
 * client's request to its gateway, a forward and an ack per hop, the replica's reply to the gateway, and the
 * gateway's answer to the client, each at its encoded size plus the header allowance; and the sizes, counted field
 * by field from the protocol's description, add up to the bytes charged.
 */
class GetCostTest {

    @Test
    void aGetIsChargedExactlyItsHandCountedMessagesAndBytes() {
        VirtualWorld world = new VirtualWorld(5, NodeConfig.defaults().withReplicas(4, 2),
                LatencyModel.constant(10_000_000L));
        world.addNodes(80);
        // Past the settling window of the joins (GetAnswers.settled): the gets below are counted as a settled view
        // serves them, by one replica.
        world.runFor(NodeConfig.defaults().settlingMillis() * 1_000_000L);
        CostMeter meter = new CostMeter(world.scheduler(), 20);
        // Every envelope a get sends, by its cause, for the count by hand below; the meter counts them too.
        Map<Long, List<Envelope>> sent = new HashMap<>();
        world.network().observer((from, to, e) -> {
            if (world.scheduler().cause() != 0) {
                sent.computeIfAbsent(world.scheduler().cause(), c -> new ArrayList<>()).add(e);
            }
            meter.sent(from, to, e);
        });
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
            ClientGet get = ClientGet.of(key, GetOptions.of(RoutingMode.DELAY_AWARE));
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
            // By hand, from the field widths of docs/protocol.md rather than the codec: the same bytes.
            List<Envelope> mine = sent.get((long) cause);
            assertThat(mine).hasSize(2 + pathMessages);
            assertThat(mine.stream().filter(e -> e.body().type() == MessageType.GET_REQUEST).count())
                    .isEqualTo(g.hops());
            assertThat(mine.stream().filter(e -> e.body().type() == MessageType.HOP_ACK).count())
                    .isEqualTo(g.hops());
            long byHand = mine.stream().mapToLong(GetCostTest::sizeByHand).sum() + (long) Cost.HEADER_BYTES * mine.size();
            assertThat(meter.bytes(cause)).isEqualTo(byHand);
            routed += g.hops() >= 1 ? 1 : 0;
        }
        assertThat(routed).as("gets that left their gateway").isGreaterThanOrEqualTo(5);
    }

    /**
     * An envelope's encoded size counted field by field (docs/protocol.md, frame body version 4): version, tag and
     * flags, the sender's contact if any, the request id, then the record's fields.
     */
    private static long sizeByHand(Envelope e) {
        long size = 1 + 1 + 1 + (e.sender() == null ? 0 : contact(e.sender())) + 8;
        Message m = e.body();
        if (m instanceof ClientGet c) {
            // key, routing, maxValues, placemark, parallelism, wantHolders, oneHop, consistency, readReplicas, filter
            return size + 20 + 1 + 4 + bytes(c.placemark()) + 4 + 1 + 1 + 1 + 4 + filter(c.options().filter());
        }
        if (m instanceof GetRequest r) {
            // key, routing, maxValues, placemark, origin, originRequestId, hops, wantHolders, cost (int, long),
            // readQuorum, filter
            return size + 20 + 1 + 4 + bytes(r.placemark()) + contact(r.origin()) + 8 + 4 + 1 + 4 + 8 + 4
                    + filter(r.filter());
        }
        if (m instanceof HopAck) {
            return size;
        }
        if (m instanceof GetReply r) {
            // status, values (each: value, ttlRemainingMillis, a stamp's presence byte and, when owned, the stamp's
            // 120 bytes), placemark, hops, detail, cost, holders, replicasRead
            long values = 2;
            for (ValueEntry v : r.values()) {
                values += bytes(v.value()) + 8 + 1 + (v.stamp() == null ? 0 : 120);
            }
            long holders = 2;
            for (Contact c : r.holders()) {
                holders += contact(c);
            }
            return size + 1 + values + bytes(r.placemark()) + 4 + 2 + utf8(r.detail()) + 4 + 8 + holders + 4;
        }
        throw new AssertionError("a get sent an unexpected message: " + m);
    }

    /** Id, host as u8 length and bytes, u16 port, u16 gateway port. */
    private static long contact(Contact c) {
        return 20 + 1 + utf8(c.address().host()) + 2 + 2;
    }

    /** A value filter (protocol version 9): its kind, then the owner's 32 bytes and the value id's 8, when given. */
    private static long filter(ValueFilter f) {
        return 1 + (f.isNone() ? 0 : 32) + (f.valueId() == null ? 0 : 8);
    }

    private static long bytes(Bytes b) {
        return 4 + b.length();
    }

    private static long utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8).length;
    }
}
