package io.rattan.sim.net;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class ServiceQueuesTest {

    /** The obvious implementation: every booked (arrival, end) kept in a list. */
    private static long readyAtByList(List<long[]> booked, long now) {
        long ready = now;
        for (long[] b : booked) {
            if (b[1] > now && b[0] <= now) {
                ready = Math.max(ready, b[1]);
            }
        }
        return ready;
    }

    @Test
    void aRingThatWrapsAndGrowsAnswersAsAPlainListOfBookingsDoes() {
        // Random bookings at rising times, ends rising as a node's services do: the ring wraps and doubles many
        // times (a slow node's backlog reaches dozens), and each answer must match the list's.
        SplittableRandom random = new SplittableRandom(7);
        ServiceQueues queues = new ServiceQueues(3);
        List<List<long[]>> lists = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
        long[] lastEnd = new long[3];
        long now = 0;
        int checks = 0;
        int deepest = 0;
        for (int step = 0; step < 20_000; step++) {
            now += random.nextLong(0, 50);
            int node = random.nextInt(3);
            if (random.nextInt(3) > 0) {
                long arrival = now + random.nextLong(0, 100);
                long start = Math.max(arrival, lastEnd[node]);
                long end = start + random.nextLong(1, step % 2000 < 1000 ? 30 : 600);
                lastEnd[node] = end;
                queues.add(node, now, arrival, start, end);
                lists.get(node).add(new long[] {arrival, end});
                long now0 = now;
                lists.get(node).removeIf(b -> b[1] <= now0);
                deepest = Math.max(deepest, lists.get(node).size());
            } else {
                assertThat(queues.readyAt(node, now)).isEqualTo(readyAtByList(lists.get(node), now));
                checks++;
            }
        }
        assertThat(checks).isGreaterThan(5_000);
        assertThat(deepest).as("the backlog must outgrow the initial ring several times").isGreaterThan(16);
    }

    @Test
    void aMessageFindsTheIdleGapsBetweenBookingsAndOnlyThose() {
        ServiceQueues queues = new ServiceQueues(1);
        queues.add(0, 0, 10, 10, 20);
        queues.add(0, 0, 30, 30, 40);

        assertThat(queues.idleFrom(0, 0, 5)).isEqualTo(5);
        assertThat(queues.idleFrom(0, 0, 15)).isEqualTo(20);
        assertThat(queues.idleFrom(0, 0, 35)).isEqualTo(40);
        assertThat(queues.fits(0, 20, 30)).as("ends as the next booking starts").isTrue();
        assertThat(queues.fits(0, 20, 31)).isFalse();
        assertThat(queues.fits(0, 5, 11)).isFalse();
        assertThat(queues.fits(0, 40, 1_000)).isTrue();
    }

    @Test
    void aQueueTooLongToSearchSendsTheMessageToTheEnd() {
        ServiceQueues queues = new ServiceQueues(1);
        for (int i = 0; i < 65; i++) {
            queues.add(0, 0, 100 + 10L * i, 100 + 10L * i, 105 + 10L * i);
        }
        assertThat(queues.idleFrom(0, 0, 0)).isEqualTo(-1);
    }

    @Test
    void aNodeNeverBookedIsReadyNow() {
        assertThat(new ServiceQueues(2).readyAt(1, 42)).isEqualTo(42);
    }
}
