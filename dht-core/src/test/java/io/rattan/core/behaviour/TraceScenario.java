package io.rattan.core.behaviour;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.core.msg.ClientMessages.ClientGet;
import io.rattan.core.msg.ClientMessages.ClientPut;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.RequestMessages.GetReply;
import io.rattan.core.msg.RequestMessages.PutReply;
import io.rattan.core.node.NodeConfig;
import io.rattan.core.virtual.LatencyModel;
import io.rattan.core.virtual.VirtualWorld;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A seeded run of the virtual world — 200 nodes join, values are put, nodes die, repair runs, every value is read
 * back — summarised as its trace hash. Run as a main class so that tests can compare separate JVMs.
 */
public final class TraceScenario {

    private TraceScenario() {
    }

    /** Runs the scenario; returns "traceHash events" or throws when a value was lost. */
    public static String run(long seed) {
        NodeConfig config = NodeConfig.defaults().withLeafSetHalf(4).withPeriods(500, 1_000, 1_000);
        LatencyModel latency = (from, to, r) -> 2_000_000L + (long) (r.nextDouble() * 60_000_000L);
        VirtualWorld world = new VirtualWorld(seed, config, latency);
        world.addNodes(200);
        SplittableRandom random = new SplittableRandom(seed ^ 0x5DEECE66DL);
        List<Id> keys = new ArrayList<>();
        List<Bytes> values = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            Id key = Id.random(random);
            Bytes value = Bytes.utf8("v" + i + "-" + random.nextLong());
            Message reply = world.request(random.nextInt(world.size()), new ClientPut(key, value, 3600, Bytes.EMPTY));
            if (!(reply instanceof PutReply p) || p.status() != Status.OK) {
                throw new IllegalStateException("put failed: " + reply);
            }
            keys.add(key);
            values.add(value);
        }
        for (int i = 0; i < 10; i++) {
            world.kill(1 + random.nextInt(world.size() - 1));
        }
        world.runFor(60_000_000_000L);
        List<Integer> live = world.liveIndexes();
        for (int i = 0; i < keys.size(); i++) {
            Message reply = world.request(live.get(random.nextInt(live.size())), ClientGet.of(keys.get(i)));
            if (!(reply instanceof GetReply g) || g.values().size() != 1 || !g.values().get(0).value()
                    .equals(values.get(i))) {
                throw new IllegalStateException("value " + i + " lost: " + reply);
            }
        }
        return Long.toHexString(world.network().traceHash()) + " " + world.scheduler().executed();
    }

    public static void main(String[] args) {
        System.out.println(run(Long.parseLong(args[0])));
    }
}
