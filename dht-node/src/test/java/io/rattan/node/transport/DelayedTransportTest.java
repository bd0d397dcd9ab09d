package io.rattan.node.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rattan.api.Address;
import io.rattan.core.env.Transport;
import io.rattan.core.msg.Envelope;
import io.rattan.core.virtual.VirtualScheduler;
import io.rattan.node.netty.TestMessages;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import org.junit.jupiter.api.Test;

/** The delays on a virtual clock: every frame's departure time is exact, with no timing in the test. */
class DelayedTransportTest {

    private static final long MS = 1_000_000;
    private static final Address A = new Address("127.0.0.1", 7400);
    private static final Address B = new Address("127.0.0.1", 7403);
    private static final Address CLIENT = new Address("127.0.0.1", 9999);

    private final VirtualScheduler world = new VirtualScheduler(0);
    private final List<Sent> sent = new ArrayList<>();
    private final Transport recording = (to, envelope) -> sent.add(new Sent(world.nanoTime() / MS, to,
            envelope.requestId()));

    /** A frame as it left: when (ms on the virtual clock), to whom, which. */
    private record Sent(long atMillis, Address to, long requestId) {
    }

    /** Each peer's delays in turn, as a jitter stream would draw them; an unknown peer gets none. */
    private static PeerDelays scripted(Map<Address, Queue<Long>> millis) {
        return to -> {
            Queue<Long> q = millis.get(to);
            return q == null ? 0 : q.remove() * MS;
        };
    }

    private static Envelope frame(long id) {
        return TestMessages.ping(id);
    }

    @Test
    void eachPeerWaitsItsOwnDelayAndOthersPassStraight() {
        Map<Address, Queue<Long>> delays = new HashMap<>();
        delays.put(A, new ArrayDeque<>(List.of(10L)));
        delays.put(B, new ArrayDeque<>(List.of(30L)));
        DelayedTransport t = new DelayedTransport(world, world, recording, scripted(delays));

        t.send(B, frame(1));
        t.send(A, frame(2));
        t.send(CLIENT, frame(3));

        assertThat(sent).containsExactly(new Sent(0, CLIENT, 3));
        world.runFor(100 * MS);
        assertThat(sent).containsExactly(new Sent(0, CLIENT, 3), new Sent(10, A, 2), new Sent(30, B, 1));
    }

    @Test
    void aFrameNeverOvertakesAnEarlierOneToTheSamePeer() {
        Map<Address, Queue<Long>> delays = new HashMap<>();
        // A's draws shrink from frame to frame: each later frame would be due before the one sent before it.
        delays.put(A, new ArrayDeque<>(List.of(50L, 10L, 30L, 1L)));
        delays.put(B, new ArrayDeque<>(List.of(5L)));
        DelayedTransport t = new DelayedTransport(world, world, recording, scripted(delays));

        t.send(A, frame(1));
        world.runFor(MS);
        t.send(A, frame(2));
        t.send(B, frame(3));
        world.runFor(MS);
        t.send(A, frame(4));
        world.runFor(60 * MS);
        t.send(A, frame(5));
        world.runFor(10 * MS);

        assertThat(sent).containsExactly(new Sent(6, B, 3), new Sent(50, A, 1), new Sent(50, A, 2),
                new Sent(50, A, 4), new Sent(63, A, 5));
    }

    @Test
    void aFrameWithNoDelayWaitsBehindFramesHeldForItsPeerAndOnlyThen() {
        Map<Address, Queue<Long>> delays = new HashMap<>();
        delays.put(A, new ArrayDeque<>(List.of(20L, 0L, 0L)));
        DelayedTransport t = new DelayedTransport(world, world, recording, scripted(delays));

        t.send(A, frame(1));
        t.send(A, frame(2));
        assertThat(sent).isEmpty();
        world.runFor(30 * MS);
        t.send(A, frame(3));

        assertThat(sent).containsExactly(new Sent(20, A, 1), new Sent(20, A, 2), new Sent(30, A, 3));
        assertThat(world.queued()).isZero();
    }

    @Test
    void aFrameDueJustAfterTheOneBeforeItLeavesWithIt() {
        List<Long> leftMicros = new ArrayList<>();
        DelayedTransport t = new DelayedTransport(world, world, (to, e) -> leftMicros.add(world.nanoTime() / 1_000),
                PeerDelays.fixed(Duration.ofMillis(10)));

        t.send(A, frame(1));
        world.runFor(DelayedTransport.SAME_BURST_NANOS);
        t.send(A, frame(2));
        world.runFor(DelayedTransport.SAME_BURST_NANOS / 2);
        t.send(A, frame(3));
        world.runFor(20 * MS);

        assertThat(leftMicros).containsExactly(10_000L, 10_000L, 10_300L);
    }

    @Test
    void aFixedDelayHoldsEveryFrameAlikeInOrder() {
        DelayedTransport t = new DelayedTransport(world, world, recording, PeerDelays.fixed(Duration.ofMillis(200)));

        t.send(A, frame(1));
        t.send(B, frame(2));
        world.runFor(50 * MS);
        t.send(A, frame(3));
        world.runFor(199 * MS);
        assertThat(sent).containsExactly(new Sent(200, A, 1), new Sent(200, B, 2));
        world.runFor(MS);
        assertThat(sent).containsExactly(new Sent(200, A, 1), new Sent(200, B, 2), new Sent(250, A, 3));
    }

    @Test
    void fixedDelaysAreBoundedAndZeroIsNone() {
        assertThat(PeerDelays.fixed(Duration.ZERO)).isSameAs(PeerDelays.NONE);
        assertThat(PeerDelays.fixed(Duration.ofSeconds(60)).delayNanos(A)).isEqualTo(60_000 * MS);
        assertThat(PeerDelays.fixed(Duration.ofMillis(3)).toString()).isEqualTo("every frame 3.000 ms");
        assertThatThrownBy(() -> PeerDelays.fixed(Duration.ofMillis(-1))).hasMessageContaining("0..60 s");
        assertThatThrownBy(() -> PeerDelays.fixed(Duration.ofSeconds(61))).hasMessageContaining("0..60 s");
        assertThatThrownBy(() -> PeerDelays.fixed(null)).isInstanceOf(IllegalArgumentException.class);
    }
}
