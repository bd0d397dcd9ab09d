package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Address;
import io.rattan.api.Id;
import io.rattan.core.net.Contact;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * The leaf set against a plain model: each side a list sorted by distance from this node, cut to {@code half}
 * members after each add. Ids are drawn from a few top words, so that many share one and their order is decided by
 * the lower words.
 */
class LeafSetPropertiesTest {

    @Property(tries = 2000)
    void agreesWithASortedListModel(@ForAll long seed, @ForAll @IntRange(min = 1, max = 8) int half,
                                    @ForAll @IntRange(min = 1, max = 200) int steps) {
        SplittableRandom random = new SplittableRandom(seed);
        Contact self = contact(random, 0);
        LeafSet leaves = new LeafSet(self, half);
        Model model = new Model(self, half);
        List<Contact> offered = new ArrayList<>();
        for (int step = 0; step < steps; step++) {
            int op = random.nextInt(10);
            if (op < 2 && !offered.isEmpty()) {
                Id id = offered.get(random.nextInt(offered.size())).id();
                assertThat(leaves.remove(id)).isEqualTo(model.remove(id));
            } else if (op < 4 && !offered.isEmpty()) {
                // The same node at a new address.
                Contact old = offered.get(random.nextInt(offered.size()));
                Contact moved = new Contact(old.id(), new Address("n", 1 + random.nextInt(60_000)));
                offered.add(moved);
                assertThat(leaves.add(moved)).isEqualTo(model.add(moved));
            } else {
                Contact c = op == 4 ? self : contact(random, 1 + random.nextInt(60_000));
                offered.add(c);
                assertThat(leaves.add(c)).isEqualTo(model.add(c));
            }
            assertThat(leaves.clockwise()).containsExactlyElementsOf(model.cw);
            assertThat(leaves.counterClockwise()).containsExactlyElementsOf(model.ccw);
            for (Contact c : offered) {
                assertThat(leaves.contains(c.id())).isEqualTo(model.cw.stream().anyMatch(m -> m.id().equals(c.id()))
                        || model.ccw.stream().anyMatch(m -> m.id().equals(c.id())));
            }
        }
    }

    private static Contact contact(SplittableRandom random, int port) {
        long hi = random.nextInt(8) * 0x2000_0000_0000_0000L;
        return new Contact(new Id(hi, random.nextLong(), random.nextLong() & 0xFFFF_FFFFL), new Address("n", port));
    }

    /** The leaf set's rules written as plainly as possible. */
    private static final class Model {
        final Contact self;
        final int half;
        final List<Contact> cw = new ArrayList<>();
        final List<Contact> ccw = new ArrayList<>();

        Model(Contact self, int half) {
            this.self = self;
            this.half = half;
        }

        boolean add(Contact c) {
            if (c.id().equals(self.id())) {
                return false;
            }
            Id s = self.id();
            boolean a = add(cw, c, (x, y) -> s.compareClockwise(x.id(), y.id()));
            boolean b = add(ccw, c, (x, y) -> s.compareClockwise(y.id(), x.id()));
            return a || b;
        }

        private boolean add(List<Contact> side, Contact c, Comparator<Contact> order) {
            for (int i = 0; i < side.size(); i++) {
                if (side.get(i).id().equals(c.id())) {
                    boolean moved = !side.get(i).address().equals(c.address());
                    side.set(i, c);
                    return moved;
                }
            }
            List<Contact> before = List.copyOf(side);
            side.add(c);
            side.sort(order);
            while (side.size() > half) {
                side.remove(side.size() - 1);
            }
            return !side.equals(before);
        }

        boolean remove(Id id) {
            boolean a = cw.removeIf(c -> c.id().equals(id));
            boolean b = ccw.removeIf(c -> c.id().equals(id));
            return a || b;
        }
    }
}
