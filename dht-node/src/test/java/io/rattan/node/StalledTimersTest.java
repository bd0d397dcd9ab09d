package io.rattan.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.channel.DefaultEventLoopGroup;
import io.netty.channel.EventLoop;
import io.rattan.core.env.Cancellable;
import io.rattan.core.slow.Distribution;
import io.rattan.core.slow.SlowPeriod;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The slow-node hook on a real loop, as the simulator's slow nodes behave. A slow node's timers wait behind its queued
 * input: a timer that falls due while an input is being served runs after it, a cancelled one never runs, and an
 * idle node's timer runs when it falls due. An input is delayed by the period its service starts in: one that arrived
 * during a period but waited past its end is served at the healthy rate. Only order is asserted.
 */
class StalledTimersTest {

    private static final long HOUR = 3_600_000_000_000L;

    private final DefaultEventLoopGroup group = new DefaultEventLoopGroup(1);
    private final EventLoop loop = group.next();

    @AfterEach
    void stop() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @Test
    void aTimerThatFallsDueWhileInputIsServedRunsAfterIt() {
        InboundStall stall = new InboundStall(List.of(new SlowPeriod(0, 0, HOUR, new Distribution.Fixed(400))),
                System.nanoTime(), loop, new SplittableRandom(1));
        StalledTimers timers = new StalledTimers(new EventLoopScheduler(loop), stall);
        List<String> ran = new CopyOnWriteArrayList<>();
        loop.execute(() -> {
            stall.submit(() -> ran.add("input"));
            timers.schedule(1_000_000, () -> ran.add("timer"));
            Cancellable cancelled = timers.schedule(2_000_000, () -> ran.add("cancelled timer"));
            // Cancelled while it waits in the queue, by a task that is no timer of the node.
            loop.schedule(cancelled::cancel, 3, TimeUnit.MILLISECONDS);
        });
        await().atMost(Duration.ofSeconds(30)).until(() -> ran.size() >= 2);
        await().pollDelay(Duration.ofMillis(500)).atMost(Duration.ofSeconds(30)).until(() -> true);
        assertThat(ran).containsExactly("input", "timer");
    }

    @Test
    void anIdleNodesTimerRunsWhenItFallsDue() {
        InboundStall stall = new InboundStall(List.of(), System.nanoTime(), loop, new SplittableRandom(1));
        StalledTimers timers = new StalledTimers(new EventLoopScheduler(loop), stall);
        List<String> ran = new CopyOnWriteArrayList<>();
        loop.execute(() -> timers.schedule(1_000_000, () -> ran.add("timer")));
        await().atMost(Duration.ofSeconds(30)).until(() -> ran.equals(List.of("timer")));
    }

    /**
     * Two inputs arrive at once in a 0.5 s period that adds 2 s each: the second starts after the period and runs with
     * the first, at 2 s, not at 4 s (as it would if the delay were drawn at arrival); a plain task at 3 s runs after
     * both.
     */
    @Test
    void inputWhoseServiceStartsAfterThePeriodTakesNoExtraDelay() {
        List<String> ran = new CopyOnWriteArrayList<>();
        loop.execute(() -> {
            InboundStall stall = new InboundStall(List.of(new SlowPeriod(0, 0, 500_000_000L,
                    new Distribution.Fixed(2000))), System.nanoTime(), loop, new SplittableRandom(1));
            stall.submit(() -> ran.add("first"));
            stall.submit(() -> ran.add("second"));
            loop.schedule(() -> ran.add("marker at 3 s"), 3, TimeUnit.SECONDS);
        });
        await().atMost(Duration.ofSeconds(60)).until(() -> ran.size() == 3);
        assertThat(ran).containsExactly("first", "second", "marker at 3 s");
    }
}
