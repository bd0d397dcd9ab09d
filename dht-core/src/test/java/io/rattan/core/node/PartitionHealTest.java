package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Id;
import io.rattan.core.net.Contact;
import io.rattan.core.virtual.LatencyModel;
import io.rattan.core.virtual.VirtualAddresses;
import io.rattan.core.virtual.VirtualWorld;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A partition that lasts long enough for each side to declare the other dead, in the virtual world with the real
 * node code: once it heals, the two rings the sides formed become one again. Each side forgets the other (its leaf
 * set and table hold only its own side), and second-hand contacts enter only once they answer a probe, so nothing but
 * the lost neighbours' pings ({@link LostContacts}) brings the sides back together.
 */
class PartitionHealTest {

    private static final long SECOND = 1_000_000_000L;
    private static final int NODES = 20;

    @Test
    void twoRingsFormedInAPartitionBecomeOneOnceItHeals() {
        NodeConfig config = NodeConfig.defaults().withLeafSetHalf(3);
        VirtualWorld world = new VirtualWorld(7, config, LatencyModel.constant(10_000_000L));
        world.addNodes(NODES);
        world.runFor(20 * SECOND);
        assertThat(wrongLeafSets(world)).as("leaf sets not the true ring's, before the partition").isZero();

        EvenOddCut halves = new EvenOddCut();
        world.network().faults(halves);
        halves.cut = true;
        // Long enough for every leaf-set member and table entry across the cut to be probed and declared dead.
        world.runFor(60 * SECOND);
        assertThat(EvenOddCut.crossing(world)).as("leaf-set members across the cut").isZero();

        halves.cut = false;
        int seconds = 0;
        while (wrongLeafSets(world) > 0 && seconds < 60) {
            world.runFor(SECOND);
            seconds++;
        }
        assertThat(wrongLeafSets(world)).as("leaf sets not the true ring's %d s after the heal", seconds).isZero();
    }

    /** Nodes whose leaf set is not the {@code leafSetHalf} nearest nodes on each side of the whole ring. */
    private static int wrongLeafSets(VirtualWorld world) {
        List<Contact> ring = new ArrayList<>();
        for (int i = 0; i < world.size(); i++) {
            ring.add(world.contact(i));
        }
        ring.sort(Comparator.comparing(Contact::id));
        int half = world.config().leafSetHalf();
        int wrong = 0;
        for (int pos = 0; pos < ring.size(); pos++) {
            Set<Id> truth = new HashSet<>();
            for (int d = 1; d <= half; d++) {
                truth.add(ring.get((pos + d) % ring.size()).id());
                truth.add(ring.get((pos - d + ring.size()) % ring.size()).id());
            }
            Set<Id> seen = new HashSet<>();
            int index = VirtualAddresses.index(ring.get(pos).address());
            world.node(index).status().leafSet().forEach(c -> seen.add(c.id()));
            wrong += seen.equals(truth) ? 0 : 1;
        }
        return wrong;
    }
}
