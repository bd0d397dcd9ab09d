package io.rattan.core.store;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.core.msg.SecretBinding;

/**
 * Where a store holds what a test put or removed, for tests that know the bytes and the secret but not the record:
 * a store is read by {@code (key, slot)} ({@link StoredRecord#slot}), and the slot of a value put with a secret is
 * not its hash. A test that holds the record asks it ({@code record.slot()}) instead.
 */
public final class TestSlots {

    private TestSlots() {
    }

    /**
     * The slot of {@code value} put under {@code key} with {@code secret} (empty or null: put without one, named by
     * its hash), which is also the slot of the tombstone a remove with that secret leaves.
     */
    public static Bytes of(Id key, Bytes value, Bytes secret) {
        return SecretBinding.slotOpenedBy(secret == null ? Bytes.EMPTY : secret, key, value.sha256());
    }
}
