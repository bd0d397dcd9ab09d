package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Address;
import io.rattan.api.Id;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.MembershipMessages.Pong;
import io.rattan.core.net.Contact;
import io.rattan.core.virtual.VirtualScheduler;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The table of requests in flight under overload: it sheds the oldest, says so, and counts it. */
class PendingRequestsTest {

    private static final long TIMEOUT = TimeUnit.SECONDS.toNanos(5);

    private final VirtualScheduler scheduler = new VirtualScheduler(0);
    private final List<String> events = new ArrayList<>();
    private int shedCount;
    private final PendingRequests pending = new PendingRequests(scheduler, 3, () -> shedCount++);

    @Test
    void atTheBoundANewRequestShedsTheOldestWhoseHandlerHearsItOnATaskOfItsOwn() {
        for (long id = 1; id <= 3; id++) {
            pending.register(id, null, 0, TIMEOUT, true, recording(id));
        }
        pending.register(4, null, 0, TIMEOUT, true, recording(4));

        assertThat(pending.size()).isEqualTo(3);
        assertThat(shedCount).isEqualTo(1);
        assertThat(pending.isOutstanding(1)).isFalse();
        assertThat(pending.isOutstanding(4)).isTrue();
        // Not inside register: a handler that sends again must not re-enter the table being shed from.
        assertThat(events).isEmpty();
        scheduler.runFor(0);
        assertThat(events).containsExactly("shed 1");

        // Its timer was cancelled: the timeout never comes for a shed request; the others time out as before.
        scheduler.runFor(TIMEOUT);
        assertThat(events).containsExactly("shed 1", "timeout 2", "timeout 3", "timeout 4");
    }

    @Test
    void anAnswerToAShedRequestFindsNothing() {
        for (long id = 1; id <= 5; id++) {
            pending.register(id, null, 0, TIMEOUT, false, recording(id));
        }
        scheduler.runFor(0);

        assertThat(shedCount).isEqualTo(2);
        assertThat(events).containsExactly("shed 1", "shed 2");
        assertThat(pending.complete(reply(1))).isNull();
        assertThat(pending.complete(reply(2))).isNull();
        assertThat(pending.complete(reply(5))).isNotNull();
        assertThat(pending.size()).isEqualTo(2);
    }

    @Test
    void aHandlerWithoutItsOwnAnswerToSheddingTimesOut() {
        List<String> seen = new ArrayList<>();
        pending.register(1, null, 0, TIMEOUT, false,
                ReplyHandler.of(e -> seen.add("reply"), () -> seen.add("timeout")));
        for (long id = 2; id <= 4; id++) {
            pending.register(id, null, 0, TIMEOUT, false, recording(id));
        }
        scheduler.runFor(0);

        assertThat(seen).containsExactly("timeout");
    }

    private ReplyHandler recording(long id) {
        return ReplyHandler.of(e -> events.add("reply " + id), () -> events.add("timeout " + id),
                () -> events.add("shed " + id));
    }

    private static Envelope reply(long id) {
        return new Envelope(new Contact(Id.ofName("peer"), new Address("127.0.0.1", 1)), id, new Pong(List.of(), 0));
    }
}
