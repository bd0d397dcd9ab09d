package io.rattan.core.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A forwarding wrapper serves every store call with the wrapped store's own method, never the interface default. */
class ForwardingStoreTest {

    private static final Id KEY = Id.fromHex("2000000000000000000000000000000000000000");

    @Test
    void everyMethodOfTheStoreIsForwarded() throws NoSuchMethodException {
        for (Method m : Store.class.getMethods()) {
            if (Modifier.isStatic(m.getModifiers())) {
                continue;
            }
            assertThat(ForwardingStore.class.getDeclaredMethod(m.getName(), m.getParameterTypes()))
                    .as("ForwardingStore declares %s", m).isNotNull();
        }
    }

    @Test
    void aGetsKeyScanReachesTheWrappedStoresOwnScanKey() {
        MemoryStore memory = new MemoryStore(() -> 1_000L);
        StoredRecord mine = StoredRecord.value(KEY, Bytes.utf8("a"), 60_000, Bytes.EMPTY);
        StoredRecord next = StoredRecord.value(Id.fromHex("2000000000000000000000000000000000000001"), Bytes.utf8("b"),
                60_000, Bytes.EMPTY);
        memory.write(mine);
        memory.write(next);
        int[] scans = new int[1];
        Store counting = new ForwardingStore(memory) {
            @Override
            public List<StoredRecord> scan(Cursor from, int limit) {
                scans[0]++;
                return super.scan(from, limit);
            }
        };
        Store wrapper = new ForwardingStore(counting) { };

        assertThat(wrapper.scanKey(Store.Cursor.atKey(KEY), 10)).containsExactly(mine);
        assertThat(scans[0]).as("scans that read past the key").isZero();
    }
}
