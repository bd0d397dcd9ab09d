package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Id;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class IdMapTest {

    @Test
    void agreesWithAHashMapUnderPutsAndRemoves() {
        SplittableRandom random = new SplittableRandom(3);
        List<Id> ids = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            // Some ids share their top word, as no two node ids should but a map must still tell apart.
            Id id = Id.random(random);
            ids.add(i % 4 == 0 && i > 0 ? new Id(ids.get(i - 1).hi(), id.mid(), id.lo()) : id);
        }
        IdMap<Integer> map = new IdMap<>();
        Map<Id, Integer> reference = new HashMap<>();
        for (int i = 0; i < 50_000; i++) {
            Id id = ids.get(random.nextInt(ids.size()));
            switch (random.nextInt(3)) {
                case 0 -> {
                    map.put(id, i);
                    reference.put(id, i);
                }
                case 1 -> {
                    map.remove(id);
                    reference.remove(id);
                }
                default -> assertThat(map.get(id)).isEqualTo(reference.get(id));
            }
            assertThat(map.size()).isEqualTo(reference.size());
        }
        List<Integer> values = new ArrayList<>();
        map.forEachValue(values::add);
        assertThat(values).containsExactlyInAnyOrderElementsOf(reference.values());
    }

    @Test
    void sweepsRemoveWhatThePredicateAcceptsAndKeepEveryOtherEntryReachable() {
        SplittableRandom random = new SplittableRandom(5);
        IdMap<Integer> map = new IdMap<>();
        Map<Id, Integer> reference = new HashMap<>();
        for (int i = 0; i < 3_000; i++) {
            Id id = Id.random(random);
            map.put(id, i);
            reference.put(id, i);
        }
        // Sweep a few slots at a time from an arbitrary slot, wrapping, until two whole passes are done: an entry
        // shifted back into a visited slot is caught on the second.
        int cursor = 12_345;
        for (int visited = 0; visited < 2 * map.capacity(); visited += 37) {
            cursor = map.sweep(cursor, 37, (id, v) -> v % 3 == 0);
        }
        reference.values().removeIf(v -> v % 3 == 0);
        assertThat(map.size()).isEqualTo(reference.size());
        for (Map.Entry<Id, Integer> e : reference.entrySet()) {
            assertThat(map.get(e.getKey())).isEqualTo(e.getValue());
        }
        List<Integer> values = new ArrayList<>();
        map.forEachValue(values::add);
        assertThat(values).containsExactlyInAnyOrderElementsOf(reference.values());
    }
}
