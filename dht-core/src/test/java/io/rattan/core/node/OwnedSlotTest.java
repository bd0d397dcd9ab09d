package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Bytes;
import org.junit.jupiter.api.Test;

class OwnedSlotTest {

    @Test
    void slotsDifferByNamespaceOwnerAndValueIdAndArePinned() {
        Bytes owner = Bytes.wrap(new byte[32]);
        Bytes slot = OwnedSlot.of("default", owner, 7);
        assertThat(slot.length()).isEqualTo(32);
        assertThat(slot).isEqualTo(OwnedSlot.of("default", owner, 7));
        assertThat(OwnedSlot.of("other", owner, 7)).isNotEqualTo(slot);
        assertThat(OwnedSlot.of("default", owner, 8)).isNotEqualTo(slot);
        byte[] other = new byte[32];
        other[31] = 1;
        assertThat(OwnedSlot.of("default", Bytes.wrap(other), 7)).isNotEqualTo(slot);
        byte[] input = new byte[14 + 1 + 7 + 32 + 8];
        System.arraycopy("rattan-slot-v1".getBytes(), 0, input, 0, 14);
        input[14] = 7;
        System.arraycopy("default".getBytes(), 0, input, 15, 7);
        input[input.length - 1] = 7;
        assertThat(slot).isEqualTo(Bytes.wrap(Bytes.sha256(input)));
    }
}
