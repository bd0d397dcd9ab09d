package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class LongMapTest {

    @Test
    void agreesWithAHashMapUnderPutsAndRemoves() {
        SplittableRandom random = new SplittableRandom(5);
        // Consecutive ids from a random start, as a node numbers its requests, plus the extremes.
        long first = random.nextLong() >>> 2;
        long[] keys = new long[300];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = first + i;
        }
        keys[0] = Long.MIN_VALUE;
        keys[1] = Long.MAX_VALUE;
        keys[2] = 0;
        LongMap<Integer> map = new LongMap<>();
        Map<Long, Integer> reference = new HashMap<>();
        for (int i = 0; i < 50_000; i++) {
            long key = keys[random.nextInt(keys.length)];
            switch (random.nextInt(3)) {
                case 0 -> {
                    map.put(key, i);
                    reference.put(key, i);
                }
                case 1 -> assertThat(map.remove(key)).isEqualTo(reference.remove(key));
                default -> assertThat(map.get(key)).isEqualTo(reference.get(key));
            }
            assertThat(map.size()).isEqualTo(reference.size());
        }
        assertThat(map.values()).containsExactlyInAnyOrderElementsOf(reference.values());
        map.clear();
        assertThat(map.size()).isZero();
        assertThat(map.values()).isEmpty();
        assertThat(map.get(keys[3])).isNull();
    }
}
