package io.rattan.bench.jmh;

import io.rattan.api.Address;
import io.rattan.api.Id;
import io.rattan.core.net.Contact;
import io.rattan.core.node.LeafSet;
import io.rattan.core.node.NextHopPolicy;
import io.rattan.core.node.RoutingTable;
import io.rattan.core.node.RttEstimator;
import io.rattan.core.node.RttView;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A get's next-hop choice on a full routing table, as a hop makes it: every neighbour (leaf set and table) closer to
 * the key is a candidate, and the policy picks one; also the table slot alone and one RTT-estimator sample.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class NextHopBenchmark {

    private static final int NEIGHBOURS_OFFERED = 20_000;
    private static final int KEYS = 1024;

    private final NextHopPolicy greedy = NextHopPolicy.greedy();
    private final NextHopPolicy delayAware = NextHopPolicy.delayAware();
    private Contact self;
    private LeafSet leafSet;
    private RoutingTable table;
    private RttView rtts;
    private Id[] keys;
    private int next;

    /** Offers 20,000 random nodes with measured RTTs: every reachable slot of the table fills up. */
    @Setup
    public void setUp() {
        SplittableRandom random = new SplittableRandom(11);
        self = new Contact(Id.random(random), new Address("127.0.0.1", 4000));
        Map<Id, Long> srtt = new HashMap<>();
        rtts = new RttView() {
            @Override
            public long srttNanos(Id peer) {
                return srtt.getOrDefault(peer, -1L);
            }

            @Override
            public long medianSrttNanos() {
                return 80_000_000L;
            }
        };
        leafSet = new LeafSet(self, 8);
        table = new RoutingTable(self.id(), 3, rtts::srttNanos);
        for (int i = 0; i < NEIGHBOURS_OFFERED; i++) {
            Contact c = new Contact(Id.random(random), new Address("10.0." + (i >> 8 & 255) + "." + (i & 255), 4000));
            srtt.put(c.id(), 1_000_000L + random.nextLong(300_000_000L));
            table.add(c);
            leafSet.add(c);
        }
        keys = new Id[KEYS];
        for (int i = 0; i < KEYS; i++) {
            keys[i] = Id.random(random);
        }
    }

    private List<Contact> candidates(Id key) {
        List<Contact> found = new ArrayList<>();
        for (Contact c : leafSet.members()) {
            if (c.id().isCloserTo(key, self.id())) {
                found.add(c);
            }
        }
        table.forEach(c -> {
            if (!leafSet.contains(c.id()) && c.id().isCloserTo(key, self.id())) {
                found.add(c);
            }
        });
        return found;
    }

    @Benchmark
    public Contact delayAware() {
        Id key = keys[next++ & (KEYS - 1)];
        return delayAware.choose(key, self.id(), candidates(key), rtts);
    }

    @Benchmark
    public Contact greedy() {
        Id key = keys[next++ & (KEYS - 1)];
        return greedy.choose(key, self.id(), candidates(key), rtts);
    }

    /** Pastry's table step alone: the best candidate of the slot the key routes through. */
    @Benchmark
    public Contact tableSlot() {
        Id key = keys[next++ & (KEYS - 1)];
        return table.best(table.slotFor(key), c -> true);
    }

    /** One RTT sample into a peer's Jacobson/Karels estimator. */
    @State(Scope.Thread)
    public static class Estimator {
        final RttEstimator rtt = new RttEstimator();
        final RttEstimator.Bounds bounds = new RttEstimator.Bounds(1_000_000_000L, 100_000_000L, 5_000_000_000L);
        long sample = 1_000_000L;
    }

    @Benchmark
    public long rttEstimatorUpdate(Estimator e) {
        e.sample = 1_000_000L + ((e.sample * 6364136223846793005L + 1) >>> 44);
        e.rtt.sample(e.sample);
        return e.rtt.rtoNanos(e.bounds);
    }
}
