package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Address;
import io.rattan.api.Id;
import io.rattan.core.net.Contact;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class IterativeLookupTest {

    private final SplittableRandom random = new SplittableRandom(5);
    private final Id key = Id.random(random);

    private List<Contact> contacts(int n) {
        List<Contact> list = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            list.add(new Contact(Id.random(random), new Address("n" + i, i + 1)));
        }
        return list;
    }

    @Test
    void keepsExactlyPInFlightClosestFirstWhileCandidatesLast() {
        IterativeLookup lookup = new IterativeLookup(key, Id.random(random), 3);
        List<Contact> all = contacts(10);
        lookup.offer(all, 1);
        List<Contact> asked = new ArrayList<>();
        Contact c;
        while ((c = lookup.next()) != null) {
            asked.add(c);
        }
        assertThat(lookup.inFlight()).isEqualTo(3);
        List<Contact> sorted = new ArrayList<>(all);
        sorted.sort((a, b) -> a.id().distanceTo(key).compareTo(b.id().distanceTo(key)));
        assertThat(asked).containsExactlyElementsOf(sorted.subList(0, 3));

        // Each answer or timeout frees one slot, which the next closest candidate takes.
        for (int i = 0; i < 7; i++) {
            if (i % 2 == 0) {
                lookup.answered(asked.get(i));
            } else {
                lookup.failed(asked.get(i));
            }
            assertThat(lookup.inFlight()).isEqualTo(2);
            asked.add(lookup.next());
            assertThat(lookup.inFlight()).isEqualTo(3);
            assertThat(lookup.next()).isNull();
        }
        assertThat(asked).containsExactlyElementsOf(sorted);
        assertThat(lookup.exhausted()).isFalse();
        asked.subList(7, 10).forEach(lookup::failed);
        assertThat(lookup.exhausted()).isTrue();
    }

    @Test
    void anExhaustedLookupAsksItsClosestFailedCandidatesOnceMore() {
        IterativeLookup lookup = new IterativeLookup(key, Id.random(random), 2);
        List<Contact> all = contacts(5);
        lookup.offer(all, 1);
        Contact c;
        while ((c = lookup.next()) != null) {
            lookup.failed(c);
        }
        assertThat(lookup.exhausted()).isTrue();
        List<Contact> sorted = new ArrayList<>(all);
        sorted.sort((a, b) -> a.id().distanceTo(key).compareTo(b.id().distanceTo(key)));

        List<Contact> again = lookup.askAgain();
        assertThat(again).as("the p closest, once more").containsExactlyElementsOf(sorted.subList(0, 2));
        assertThat(lookup.inFlight()).isEqualTo(2);
        assertThat(lookup.exhausted()).isFalse();
        lookup.answered(again.get(1));
        lookup.failed(again.get(0));
        assertThat(lookup.exhausted()).isTrue();
        assertThat(lookup.askAgain()).as("only once").isEmpty();
    }

    @Test
    void newCloserCandidatesGoFirstAndSelfAndDuplicatesAreSkipped() {
        Id self = Id.random(random);
        IterativeLookup lookup = new IterativeLookup(key, self, 1);
        List<Contact> far = contacts(3);
        lookup.offer(far, 1);
        Contact first = lookup.next();
        Contact closest = new Contact(key, new Address("root", 99));
        lookup.offer(List.of(closest, first, new Contact(self, new Address("me", 1))), 2);
        lookup.answered(first);
        assertThat(lookup.next()).isEqualTo(closest);
        assertThat(lookup.depth(closest)).isEqualTo(2);
        assertThat(lookup.next()).isNull();
    }

    @Test
    void remembersAtMostTheClosestCandidates() {
        IterativeLookup lookup = new IterativeLookup(key, Id.random(random), 1);
        lookup.offer(contacts(100), 1);
        int n = 0;
        Contact c;
        while ((c = lookup.next()) != null) {
            n++;
            lookup.failed(c);
        }
        assertThat(n).isEqualTo(IterativeLookup.CANDIDATES_MAX);
    }
}
