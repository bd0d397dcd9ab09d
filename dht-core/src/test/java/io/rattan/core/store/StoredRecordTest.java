package io.rattan.core.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.core.msg.SecretBinding;
import org.junit.jupiter.api.Test;

/** A record's slot: computed from its fields once, or given by the store that read it under that slot. */
class StoredRecordTest {

    private static final Id KEY = Id.ofName("k");
    private static final Bytes VALUE = Bytes.utf8("v");
    private static final Bytes SECRET = Bytes.utf8("s");

    @Test
    void aComputedSlotIsTheHashWithoutABindingAndCommitsToTheBindingWithOne() {
        StoredRecord open = StoredRecord.value(KEY, VALUE, 1, Bytes.EMPTY);
        Bytes binding = SecretBinding.of(SECRET, KEY, VALUE.sha256());
        StoredRecord bound = StoredRecord.value(KEY, VALUE, 1, binding);
        StoredRecord tombstone = StoredRecord.tombstone(KEY, VALUE.sha256(), 1, SECRET);

        assertThat(open.slot()).isEqualTo(VALUE.sha256());
        assertThat(bound.slot()).isEqualTo(SecretBinding.slot(VALUE.sha256(), binding)).isNotEqualTo(open.slot());
        assertThat(tombstone.slot()).isEqualTo(bound.slot());
    }

    @Test
    void aGivenSlotIsKeptAndTheRecordEqualsTheComputedOne() {
        StoredRecord bound = StoredRecord.value(KEY, VALUE, 1, SecretBinding.of(SECRET, KEY, VALUE.sha256()));
        StoredRecord read = new StoredRecord(KEY, bound.valueHash(), VALUE, 1, bound.binding(), Bytes.EMPTY, false,
                null, bound.slot());

        assertThat(read).isEqualTo(bound);
        assertThat(read.slot()).isSameAs(bound.slot());
    }

    @Test
    void aSlotThatCannotNameTheRecordIsRefused() {
        Bytes hash = VALUE.sha256();
        Bytes binding = SecretBinding.of(SECRET, KEY, hash);
        Bytes other = Bytes.utf8("other").sha256();

        // A value with a binding, or a tombstone with a secret, is never named by its bare hash.
        assertThatThrownBy(() -> new StoredRecord(KEY, hash, VALUE, 1, binding, Bytes.EMPTY, false, null, hash))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new StoredRecord(KEY, hash, Bytes.EMPTY, 1, Bytes.EMPTY, SECRET, true, null, hash))
                .isInstanceOf(IllegalArgumentException.class);
        // A value without one is named by its hash only.
        assertThatThrownBy(() -> new StoredRecord(KEY, hash, VALUE, 1, Bytes.EMPTY, Bytes.EMPTY, false, null, other))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
