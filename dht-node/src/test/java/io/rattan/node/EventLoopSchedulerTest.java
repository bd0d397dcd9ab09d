package io.rattan.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.channel.EventLoopGroup;
import io.rattan.core.env.Cancellable;
import io.rattan.node.netty.EventLoops;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class EventLoopSchedulerTest {

    private final EventLoopGroup group = EventLoops.newGroup(1, "scheduler-test");
    private final EventLoopScheduler scheduler = new EventLoopScheduler(group.next());
    private final List<String> ran = new CopyOnWriteArrayList<>();

    @AfterEach
    void shutDown() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @Test
    void executesTasksOnTheLoopInSubmissionOrder() {
        List<Boolean> onLoop = new CopyOnWriteArrayList<>();
        for (int i = 0; i < 100; i++) {
            int n = i;
            scheduler.execute(() -> {
                onLoop.add(scheduler.loop().inEventLoop());
                ran.add("t" + n);
            });
        }

        await().atMost(Duration.ofSeconds(10)).until(() -> ran.size() == 100);
        assertThat(ran).containsExactlyElementsOf(IntStream.range(0, 100)
                .mapToObj(i -> "t" + i).toList());
        assertThat(onLoop).containsOnly(true);
    }

    @Test
    void runsScheduledTasksInDeadlineOrderNotSubmissionOrder() {
        // Submitted latest-first; the gaps between delays are wide so that the order cannot depend on how long the
        // three schedule calls themselves take.
        scheduler.execute(() -> {
            scheduler.schedule(TimeUnit.MILLISECONDS.toNanos(300), () -> ran.add("late"));
            scheduler.schedule(TimeUnit.MILLISECONDS.toNanos(150), () -> ran.add("middle"));
            scheduler.schedule(TimeUnit.MILLISECONDS.toNanos(1), () -> ran.add("early"));
            scheduler.execute(() -> ran.add("now"));
        });

        await().atMost(Duration.ofSeconds(10)).until(() -> ran.size() == 4);
        assertThat(ran).containsExactly("now", "early", "middle", "late");
    }

    @Test
    void tasksWithEqualDelaysRunInSubmissionOrder() {
        scheduler.execute(() -> {
            for (int i = 0; i < 50; i++) {
                int n = i;
                scheduler.schedule(TimeUnit.MILLISECONDS.toNanos(5), () -> ran.add("t" + n));
            }
        });

        await().atMost(Duration.ofSeconds(10)).until(() -> ran.size() == 50);
        assertThat(ran).containsExactlyElementsOf(IntStream.range(0, 50).mapToObj(i -> "t" + i).toList());
    }

    @Test
    void cancelledTaskNeverRuns() {
        Cancellable cancelled = scheduler.schedule(TimeUnit.MILLISECONDS.toNanos(20), () -> ran.add("cancelled"));
        cancelled.cancel();
        scheduler.schedule(TimeUnit.MILLISECONDS.toNanos(60), () -> ran.add("sentinel"));

        await().atMost(Duration.ofSeconds(10)).until(() -> ran.contains("sentinel"));
        assertThat(ran).containsExactly("sentinel");
        cancelled.cancel(); // harmless after the fact
    }

    @Test
    void failingTaskDoesNotStopTheLoop() {
        scheduler.execute(() -> {
            throw new IllegalStateException("boom (expected by the test)");
        });
        scheduler.schedule(0, () -> {
            throw new IllegalStateException("scheduled boom (expected by the test)");
        });
        scheduler.execute(() -> ran.add("after"));
        scheduler.schedule(TimeUnit.MILLISECONDS.toNanos(5), () -> ran.add("scheduled after"));

        await().atMost(Duration.ofSeconds(10)).until(() -> ran.size() == 2);
        assertThat(ran).containsExactly("after", "scheduled after");
    }

    @Test
    void tasksAfterShutdownAreDroppedQuietly() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();

        scheduler.execute(() -> ran.add("execute"));
        Cancellable c = scheduler.schedule(0, () -> ran.add("schedule"));

        c.cancel();
        assertThat(ran).isEmpty();
    }

    @Test
    void systemClockMovesForward() {
        SystemClock clock = new SystemClock();
        long t0 = clock.nanoTime();
        assertThat(clock.nanoTime()).isGreaterThanOrEqualTo(t0);
        assertThat(clock.epochMillis()).isPositive();
    }
}
