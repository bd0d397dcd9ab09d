package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.ValueFilter;
import io.rattan.core.env.ExpiryClock;
import io.rattan.core.store.ManualTestClock;
import io.rattan.core.store.MemoryStore;
import io.rattan.core.store.StoredRecord;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A node whose wall clock booted an hour ahead: until its peers confirm its expiry clock ({@link ExpiryClock#settled})
 * it judges no copy expired, so that what repair brings it meanwhile is there once its peers set the clock right.
 * Through {@link LocalReplica} over a {@link MemoryStore} read by the same clock, as a node wires them.
 */
class UnsettledClockCopyTest {

    private static final long T0 = 1_700_000_000_000L;
    private static final long HOUR = 3_600_000L;
    private static final Id KEY = Id.fromHex("1000000000000000000000000000000000000000");

    private final ManualTestClock wall = new ManualTestClock(T0 + HOUR);
    private ExpiryClock clock;
    private MemoryStore store;
    private LocalReplica replica;

    @BeforeEach
    void bootAnHourAhead() {
        clock = new ExpiryClock(wall, ExpiryClock.SKEW_BOUND_MILLIS);
        store = new MemoryStore(clock::epochMillis);
        clock.attach(store);
        replica = new LocalReplica(NodeConfig.defaults(), store, clock, "test");
    }

    private static StoredRecord value(String v, long expiresAtMillis) {
        return StoredRecord.value(KEY, Bytes.utf8(v), expiresAtMillis, Bytes.EMPTY);
    }

    private void settleAt(long peerMillis) {
        for (int i = 0; i < 5; i++) {
            clock.peerTime("peer" + i, peerMillis, 0);
        }
    }

    @Test
    void aCopyLiveByTrueTimeIsKeptWhileTheClockIsUnsettledAndReadOnceItIsSetRight() {
        StoredRecord live = value("live for ten minutes", T0 + 10 * 60_000);
        assertThat(clock.settled()).isFalse();

        assertThat(replica.acceptReplicas(List.of(replica.toWire(live))))
                .as("kept, not judged expired; not counted, since this node cannot serve it yet").isZero();
        assertThat(store.size()).isOne();

        settleAt(T0);
        assertThat(clock.epochMillis()).as("its peers set it right").isLessThan(T0 + HOUR / 2);
        assertThat(replica.readPage(KEY, 0, Bytes.EMPTY, 0, ValueFilter.NONE).values()).extracting(v -> v.value())
                .containsExactly(live.value());
    }

    @Test
    void onceSettledACopyExpiredByItsClockIsRefusedAndATrulyExpiredOneTakenMeanwhileIsPurged() {
        StoredRecord expired = value("expired a minute ago", T0 - 60_000);
        replica.acceptReplicas(List.of(replica.toWire(expired)));
        settleAt(T0);

        replica.purgeExpired();

        assertThat(replica.readPage(KEY, 0, Bytes.EMPTY, 0, ValueFilter.NONE).values())
                .as("purged once the clock settled").isEmpty();
        assertThat(replica.acceptReplicas(List.of(replica.toWire(value("expired too", T0 - 1_000))))).isZero();
        assertThat(store.size()).isZero();
    }
}
