package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Id;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link KeyRange#overlap}: every key both arcs hold, and only keys of the second (the arc a node shares with its
 * asker, which the repair guard reads), on arcs whose ends are drawn from a few points of the ring (so that arcs share ends, wrap
 * past zero, nest and cover the ring) and on keys at, next to and between those points.
 */
class KeyRangeTest {

    private static final Id ONE = new Id(0, 0, 1);

    @Test
    void theOverlapHoldsEveryKeyBothHoldAndLiesWithinTheOtherArc() {
        List<Id> points = new ArrayList<>();
        KeyRange.whole().split(8).forEach(p -> points.addAll(List.of(p.lo(), p.lo().plus(ONE), p.lo().minus(ONE))));
        List<Id> keys = new ArrayList<>(points);
        KeyRange.whole().split(16).forEach(p -> keys.add(p.lo()));
        SplittableRandom random = new SplittableRandom(3);
        int disjoint = 0;
        for (int trial = 0; trial < 20_000; trial++) {
            KeyRange a = arc(points, random);
            KeyRange s = arc(points, random);
            KeyRange o = a.overlap(s);
            for (Id k : keys) {
                boolean both = a.contains(k) && s.contains(k);
                assertThat(o != null && o.contains(k) || !both).as("%s in %s and %s: in %s", k, a, s, o).isTrue();
                assertThat(o == null || !o.contains(k) || s.contains(k)).as("%s of %s and %s within the second", o, a, s)
                        .isTrue();
            }
            disjoint += o == null ? 1 : 0;
        }
        assertThat(disjoint).as("disjoint pairs drawn").isPositive();
    }

    @Test
    void theWholeRingOverlapsAnArcInThatArc() {
        KeyRange arc = new KeyRange(new Id(0, 0, 5), new Id(0, 0, 9));
        assertThat(KeyRange.whole().overlap(arc)).isEqualTo(arc);
        assertThat(arc.overlap(KeyRange.whole())).isEqualTo(arc);
        assertThat(arc.overlap(new KeyRange(new Id(0, 0, 9), new Id(0, 0, 12)))).isNull();
        assertThat(arc.overlap(new KeyRange(new Id(0, 0, 7), new Id(0, 0, 12))))
                .isEqualTo(new KeyRange(new Id(0, 0, 7), new Id(0, 0, 9)));
    }

    private static KeyRange arc(List<Id> points, SplittableRandom random) {
        return new KeyRange(points.get(random.nextInt(points.size())), points.get(random.nextInt(points.size())));
    }
}
