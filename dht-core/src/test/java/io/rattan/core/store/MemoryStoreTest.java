package io.rattan.core.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import org.junit.jupiter.api.Test;

class MemoryStoreTest extends StoreContractTest {

    @Override
    protected Store newStore(ManualTestClock clock) {
        return new MemoryStore(clock::epochMillis);
    }

    @Test
    void expiryIndexEmptiesWithThePurge() {
        MemoryStore memory = (MemoryStore) store;
        for (int i = 0; i < 10; i++) {
            memory.write(StoredRecord.value(Id.ofName("k" + i), Bytes.utf8("v"), T0 + 10 + i,
                    Bytes.EMPTY));
        }
        memory.write(StoredRecord.value(Id.ofName("k0"), Bytes.utf8("v"), T0 + 50, Bytes.EMPTY));
        assertThat(memory.expiryIndexSize()).isEqualTo(10);

        clock.advanceMillis(100);
        assertThat(memory.purgeExpired(Integer.MAX_VALUE)).isEqualTo(10);

        assertThat(memory.size()).isZero();
        assertThat(memory.expiryIndexSize()).isZero();
    }
}
