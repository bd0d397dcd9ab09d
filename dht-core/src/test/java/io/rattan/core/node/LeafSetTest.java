package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Address;
import io.rattan.api.Id;
import io.rattan.core.net.Contact;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class LeafSetTest {

    private static Contact at(long hi, int port) {
        return new Contact(new Id(hi, 0, 0), new Address("n", port));
    }

    @Test
    void keepsTheNearestOnEachSide() {
        LeafSet leaves = new LeafSet(at(0, 1), 2);
        for (long hi : new long[] {5, 1, 3, -1, -4, -2, 7}) {
            leaves.add(at(hi << 32, (int) (hi & 0xFF) + 2));
        }
        assertThat(leaves.clockwise()).extracting(c -> c.id().hi()).containsExactly(1L << 32, 3L << 32);
        assertThat(leaves.counterClockwise()).extracting(c -> c.id().hi()).containsExactly(-1L << 32, -2L << 32);
    }

    @Test
    void holdsAMemberByValueAsWellAsByReferenceButNotAtAnotherAddress() {
        LeafSet leaves = new LeafSet(at(0, 1), 2);
        Contact member = at(3L << 32, 5);
        leaves.add(member);
        leaves.add(at(-(3L << 32), 6));

        assertThat(leaves.holds(member)).isTrue();
        assertThat(leaves.holds(at(3L << 32, 5))).as("an equal copy, as decoded off the wire").isTrue();
        assertThat(leaves.holds(at(-(3L << 32), 6))).isTrue();
        assertThat(leaves.holds(at(3L << 32, 9))).as("the same id at a new address is news").isFalse();
        assertThat(leaves.holds(at(4L << 32, 5))).isFalse();
    }

    @Test
    void coversOnlyItsRangeWhenTheRingIsLarger() {
        LeafSet leaves = new LeafSet(at(0, 1), 2);
        for (long hi : new long[] {1, 2, -1, -2, 100, -100}) {
            leaves.add(at(hi << 40, (int) (hi & 0xFF) + 2));
        }
        assertThat(leaves.covers(new Id(1L << 40, 0, 0))).isTrue();
        assertThat(leaves.covers(new Id(-(1L << 41), 0, 0))).isTrue();
        assertThat(leaves.covers(new Id(50L << 40, 0, 0))).isFalse();
    }

    @Test
    void overlappingSidesMeanTheWholeRingIsKnown() {
        // 7 other nodes, 4 per side: the farthest members of the two sides are the same node.
        LeafSet leaves = new LeafSet(at(0, 1), 4);
        SplittableRandom random = new SplittableRandom(1);
        for (int i = 0; i < 7; i++) {
            leaves.add(new Contact(Id.random(random), new Address("n", i + 2)));
        }
        assertThat(leaves.size()).isEqualTo(7);
        for (int i = 0; i < 100; i++) {
            assertThat(leaves.covers(Id.random(random))).isTrue();
        }
    }

    @Test
    void placesAPeerOnlyWhenNoUnseenNodeCanBeCloserToTheKeyThanThatPeer() {
        // This node at 0, half 2: members at 1, 2 clockwise and -1, -2 counter-clockwise; unseen nodes lie beyond.
        LeafSet leaves = new LeafSet(at(0, 1), 2);
        for (long hi : new long[] {1, 2, -1, -2, 100, -100}) {
            leaves.add(at(hi << 40, (int) (hi & 0xFF) + 2));
        }
        Id key = new Id(3L << 38, 0, 0); // 0.75: the member at 1 is 0.25 from it, this node 0.75, the one at 2 1.25
        assertThat(leaves.knowsAllCloser(key, new Id(1L << 40, 0, 0), () -> true)).isTrue();
        assertThat(leaves.knowsAllCloser(key, new Id(0, 0, 0), () -> true)).as("this node itself").isTrue();
        assertThat(leaves.knowsAllCloser(key, new Id(2L << 40, 0, 0), () -> true)).as("the clockwise edge").isTrue();
        // -1 lies 1.75 from the key, the clockwise edge at 2 only 1.25: an unseen node at 2.1 would be closer.
        assertThat(leaves.knowsAllCloser(key, new Id(-(1L << 40), 0, 0), () -> true)).isFalse();
        assertThat(leaves.knowsAllCloser(new Id(50L << 40, 0, 0), new Id(2L << 40, 0, 0), () -> true))
                .as("a key beyond the sides").isFalse();
        assertThat(leaves.seesPast(key, () -> true)).as("as seesPast answers for this node itself").isTrue();
        // -0.75: the counter-clockwise end at -2 is 1.25 from it, the member at 1 1.75: a node at -2.1 would be closer.
        assertThat(leaves.knowsAllCloser(new Id(-(3L << 38), 0, 0), new Id(1L << 40, 0, 0), () -> true)).isFalse();
        assertThat(new LeafSet(at(0, 1), 2).knowsAllCloser(key, new Id(1L << 40, 0, 0), () -> true))
                .as("an empty leaf set places nobody").isFalse();
    }

    @Test
    void aSmallOverlaysSidesEndOnTheirOwnHalvesAndHoldEveryNodeWhenNothingElseIsKnown() {
        // Two others and room on both sides: each side holds both, in its own order; its end is its last member on
        // its own half (1 clockwise, -1 counter-clockwise), not its last member.
        LeafSet leaves = new LeafSet(at(0, 1), 2);
        leaves.add(at(1L << 40, 2));
        leaves.add(at(-(1L << 40), 3));
        Id half = new Id(1L << 39, 0, 0);
        assertThat(leaves.knowsAllCloser(half, new Id(1L << 40, 0, 0), () -> true)).isTrue();
        Id far = new Id(50L << 40, 0, 0);
        assertThat(leaves.knowsAllCloser(far, new Id(1L << 40, 0, 0), () -> false))
                .as("the whole overlay, and no node known outside it").isTrue();
        assertThat(leaves.knowsAllCloser(far, new Id(1L << 40, 0, 0), () -> true))
                .as("a node known outside the sides: the key lies beyond their ends").isFalse();
    }
}
