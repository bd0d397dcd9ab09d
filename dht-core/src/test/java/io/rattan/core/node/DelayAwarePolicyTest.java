package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Address;
import io.rattan.api.Id;
import io.rattan.core.net.Contact;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DelayAwarePolicyTest {

    private static final long MS = 1_000_000L;

    private static Contact node(String hexPrefix, int port) {
        return new Contact(Id.fromHex(hexPrefix + "0".repeat(40 - hexPrefix.length())), new Address("n", port));
    }

    private static RttView rtts(Map<Id, Long> srtt, long medianMs) {
        return new RttView() {
            @Override
            public long srttNanos(Id peer) {
                return srtt.getOrDefault(peer, -1L);
            }

            @Override
            public long medianSrttNanos() {
                return medianMs * MS;
            }
        };
    }

    // Half the ring from the key; near is almost at it, half is half way: near makes twice half's progress.
    private final Id self = Id.fromHex("0".repeat(40));
    private final Id key = Id.fromHex("8" + "0".repeat(39));
    private final Contact near = node("7fff", 1);
    private final Contact half = node("c0", 2);
    private final DelayAwarePolicy policy = new DelayAwarePolicy();

    @Test
    void anUnmeasuredNeighbourLosesToAMeasuredOneUnderTheKneeThatMakesHalfItsProgress() {
        // Knee 150 ms; half at 100 ms counts 87% of its progress, near unmeasured about 5% of its own.
        assertThat(policy.choose(key, self, List.of(near, half), rtts(Map.of(half.id(), 100 * MS), 100)))
                .isEqualTo(half);
    }

    @Test
    void anUnmeasuredNeighbourWinsOverOneMeasuredFarAboveTheKnee() {
        assertThat(policy.choose(key, self, List.of(near, half), rtts(Map.of(half.id(), 450 * MS), 100)))
                .isEqualTo(near);
    }

    @Test
    void betweenMeasuredNeighboursUnderTheKneeProgressDecides() {
        assertThat(policy.choose(key, self, List.of(near, half),
                rtts(Map.of(half.id(), 60 * MS, near.id(), 90 * MS), 100))).isEqualTo(near);
    }
}
