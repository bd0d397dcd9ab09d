package io.rattan.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.channel.DefaultEventLoopGroup;
import io.netty.channel.EventLoop;
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
 * A slow node's input is delayed by the slow period its service starts in, as the simulator's: an input that arrived
 * during a period but waited in the queue past its end is served at the healthy rate. Two inputs arrive at once in a
 * 0.5 s period that adds 2 s each: the second starts after the period and runs with the first, at 2 s, not at 4 s
 * (as it would if the delay were drawn at arrival). Only order against a plain task at 3 s is asserted.
 */
class SlowPeriodEndTest {

    private static final long MS = 1_000_000L;

    private final DefaultEventLoopGroup group = new DefaultEventLoopGroup(1);
    private final EventLoop loop = group.next();

    @AfterEach
    void stop() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @Test
    void inputWhoseServiceStartsAfterThePeriodTakesNoExtraDelay() {
        List<String> ran = new CopyOnWriteArrayList<>();
        loop.execute(() -> {
            InboundStall stall = new InboundStall(List.of(new SlowPeriod(0, 0, 500 * MS,
                    new Distribution.Fixed(2000))), System.nanoTime(), loop, new SplittableRandom(1));
            stall.submit(() -> ran.add("first"));
            stall.submit(() -> ran.add("second"));
            loop.schedule(() -> ran.add("marker at 3 s"), 3, TimeUnit.SECONDS);
        });
        await().atMost(Duration.ofSeconds(60)).until(() -> ran.size() == 3);
        assertThat(ran).containsExactly("first", "second", "marker at 3 s");
    }
}
