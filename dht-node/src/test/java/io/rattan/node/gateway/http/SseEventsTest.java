package io.rattan.node.gateway.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rattan.api.Bytes;
import io.rattan.api.Status;
import io.rattan.core.msg.RequestMessages.ValueEntry;
import io.rattan.core.msg.WatchKind;
import io.rattan.core.msg.WatchMessages.WatchEvent;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The text of a watch's events and the ids a client resumes with. */
class SseEventsTest {

    @Test
    void anIdRoundTripsEveryEpochIncludingNegativeOnes() {
        for (long epoch : new long[] {1, -1, Long.MIN_VALUE, 0x5f0c3a9be17d2204L}) {
            String id = SseEvents.id(epoch, 42);
            assertThat(id).matches("[0-9a-f]{16}-42");
            assertThat(SseEvents.parseId(id)).containsExactly(epoch, 42);
            assertThat(SseEvents.parseId(id.toUpperCase())).containsExactly(epoch, 42);
        }
    }

    @Test
    void malformedIdsAreRefusedWithAMessage() {
        for (String bad : new String[] {"", "-", "abc-1", "00000000000000001-1", "0000000000000001-", "0000000000000001",
                "0000000000000001--1", "0000000000000001-1x", "0000000000000001-99999999999999999999",
                "0000000000000001-\u0661"}) {
            assertThatThrownBy(() -> SseEvents.parseId(bad)).as(bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("event id");
        }
    }

    @Test
    void eventsAreIdEventAndOneLineOfData() {
        Bytes value = Bytes.wrap("two\nlines".getBytes(StandardCharsets.UTF_8));
        String text = new String(SseEvents.format(WatchEvent.of(WatchKind.VALUE, 7, 3, value.sha256(),
                new ValueEntry(value, 1_500))), StandardCharsets.UTF_8);
        assertThat(text).startsWith("id: 0000000000000007-3\nevent: value\ndata: {").endsWith("}\n\n");
        assertThat(text.split("\n")).hasSize(3);
        assertThat(text).contains("\"valueHash\":\"" + value.sha256().toHex() + "\"")
                .contains("\"ttlRemainingSeconds\":2");

        String removed = new String(SseEvents.format(WatchEvent.of(WatchKind.REMOVED, 7, 4, value.sha256(),
                WatchEvent.NO_VALUE)), StandardCharsets.UTF_8);
        assertThat(removed).isEqualTo("id: 0000000000000007-4\nevent: removed\ndata: {\"valueHash\":\""
                + value.sha256().toHex() + "\"}\n\n");
        assertThat(new String(SseEvents.format(WatchEvent.of(WatchKind.READY, 7, 4, Bytes.EMPTY,
                WatchEvent.NO_VALUE)), StandardCharsets.UTF_8)).isEqualTo("id: 0000000000000007-4\nevent: ready\ndata: {}\n\n");
    }

    @Test
    void endedHasNoIdAndCarriesTheProblem() {
        String text = new String(SseEvents.format(WatchEvent.ended(Status.RATE_LIMITED, "too many")),
                StandardCharsets.UTF_8);
        assertThat(text).startsWith("event: ended\ndata: {").contains("\"status\":429")
                .contains("\"detail\":\"too many\"").contains("rate-limited");
    }
}
