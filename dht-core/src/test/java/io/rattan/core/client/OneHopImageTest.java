package io.rattan.core.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Address;
import io.rattan.api.Id;
import io.rattan.core.net.Contact;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class OneHopImageTest {

    private final SplittableRandom random = new SplittableRandom(9);

    private List<Contact> contacts(int n) {
        List<Contact> list = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            list.add(new Contact(Id.random(random), new Address("n" + i, i + 1)));
        }
        return list;
    }

    @Test
    void closestAreTheKnownNodesNearestTheKeyAcrossTheWrap() {
        OneHopImage image = new OneHopImage(100);
        assertThat(image.closest(Id.ZERO, 3)).isEmpty();
        List<Contact> all = contacts(50);
        image.learn(all);
        for (int k = 0; k < 200; k++) {
            Id key = k == 0 ? Id.ZERO : k == 1 ? Id.MAX : Id.random(random);
            List<Contact> expected = new ArrayList<>(all);
            expected.sort((a, b) -> a.id().distanceTo(key).compareTo(b.id().distanceTo(key)));
            assertThat(image.closest(key, 5)).containsExactlyElementsOf(expected.subList(0, 5));
        }
        assertThat(image.closest(Id.ZERO, 80)).hasSize(50);
    }

    @Test
    void forgetsNodesThatFailAndTheOldestWhenFull() {
        OneHopImage image = new OneHopImage(3);
        List<Contact> c = contacts(4);
        image.learn(c.subList(0, 3));
        image.forget(c.get(1).id());
        assertThat(image.size()).isEqualTo(2);
        image.learn(List.of(c.get(3), c.get(1)));
        assertThat(image.size()).isEqualTo(3);
        assertThat(image.closest(c.get(0).id(), 3)).doesNotContain(c.get(0));
    }
}
