package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.core.store.StoredRecord;
import io.rattan.core.virtual.LatencyModel;
import io.rattan.core.virtual.VirtualWorld;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Range repair with a peer whose store is slow: its answer to a range digest over the whole arc takes longer than the
 * peer's request timeout cap ({@code rtoMaxMillis}, 5 s), because it scans its own copy of the arc a page at a time
 * first. At 200,000 values of 1 KiB on 12 loaded processes (docs/durability.md, proof 2) that is what every session
 * met after the kill: each one's first range digest timed out, the session failed, and the next one asked the same
 * question with the same timeout, so the values that lacked copies stayed lacking. Here the store's work runs 300 ms
 * after it is submitted ({@link VirtualWorld#deferStoreWork}), so that a scan of 10,500 records (21 pages of
 * {@value LocalReplica#SCAN_PAGE}) takes 6.3 s.
 */
class SlowScanRepairTest {

    private static final long SECOND = 1_000_000_000L;

    @Test
    void aPeerWhoseScanOutlastsTheRequestTimeoutIsRepairedAll() {
        NodeConfig config = NodeConfig.defaults().withReplicas(2, 2).withLeafSetHalf(1).withPeriods(1_000, 5_000,
                10_000);
        VirtualWorld world = new VirtualWorld(17, config, LatencyModel.constant(10_000_000L));
        world.deferStoreWork(300_000_000L);
        world.addNodes(2);
        world.runFor(10 * SECOND);
        long expires = world.scheduler().epochMillis() + 86_400_000L;
        SplittableRandom random = new SplittableRandom(3);
        List<StoredRecord> all = new ArrayList<>();
        int missing = 1_500;
        for (int i = 0; i < 12_000; i++) {
            byte[] v = new byte[100];
            random.nextBytes(v);
            StoredRecord r = StoredRecord.value(Id.random(random), Bytes.wrap(v), expires, Bytes.EMPTY);
            all.add(r);
            world.store(0).write(r);
            if (i >= missing) {
                world.store(1).write(r);
            }
        }

        world.runFor(300 * SECOND);

        long lacking = all.stream().filter(r -> world.store(1).read(r.key(), r.slot()).isEmpty()).count();
        assertThat(lacking).as("records the second replica still lacks, of %d", missing).isZero();
    }
}
