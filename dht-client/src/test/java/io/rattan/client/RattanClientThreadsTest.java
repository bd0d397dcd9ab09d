package io.rattan.client;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.util.concurrent.FastThreadLocalThread;
import io.rattan.api.GetOptions;
import io.rattan.api.Id;
import io.rattan.api.RoutingMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Where the futures a client returns complete: on its completion executor, never on its Netty event loops. Replies
 * are held at the fake gateway until the callbacks are attached, so that each callback runs where the future
 * completes, not on the test thread that attached it to a future already done.
 */
class RattanClientThreadsTest {

    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final Duration TTL = Duration.ofMinutes(10);

    @RegisterExtension
    final Closer closer = new Closer();

    @Test
    void callbacksRunOnTheClientsOwnPoolNeverOnAnEventLoop() throws Exception {
        FakeGateway gw = closer.track(FakeGateway.start());
        RattanClient client = closer.track(RattanClient.builder().loadRing(false).gateway(gw.address()).eventLoopThreads(2).build());

        List<Thread> threads = callbackThreads(gw, client);

        for (Thread t : threads) {
            assertThat(client.runtime().isEventLoopThread(t)).as(t.getName()).isFalse();
            assertThat(t).as(t.getName()).isNotInstanceOf(FastThreadLocalThread.class);
            assertThat(t.getName()).startsWith("rattan-callback-");
            assertThat(t.isDaemon()).isTrue();
        }
    }

    @Test
    void callbacksRunOnTheExecutorTheBuilderWasGiven() throws Exception {
        ExecutorService executor = Executors.newSingleThreadExecutor(r -> new Thread(r, "test-executor"));
        closer.track(executor::shutdownNow);
        FakeGateway gw = closer.track(FakeGateway.start());
        RattanClient client = closer.track(RattanClient.builder().loadRing(false).gateway(gw.address()).executor(executor).build());

        List<Thread> threads = callbackThreads(gw, client);

        assertThat(threads).extracting(Thread::getName).containsOnly("test-executor");
        client.close();
        assertThat(executor.isShutdown()).as("the client leaves the caller's executor alone").isFalse();
    }

    @Test
    void callsFailedByCloseCompleteOffTheLoopsBeforeCloseReturns() throws Exception {
        FakeGateway gw = closer.track(FakeGateway.start()).mode(FakeGateway.Mode.DROP);
        RattanClient client = closer.track(RattanClient.builder().loadRing(false).gateway(gw.address()).attemptTimeout(WAIT)
                .totalTimeout(WAIT).build());
        AtomicReference<Thread> thread = new AtomicReference<>();
        CompletableFuture<GetResult> pending = client.get(RattanClient.key("k"), GetOptions.defaults());
        CompletableFuture<Void> callback = pending.handle((r, e) -> {
            thread.set(Thread.currentThread());
            return null;
        });
        await().atMost(WAIT).until(() -> gw.requests() >= 1);

        client.close();

        assertThat(callback).as("close waits for the completions it caused").isDone();
        assertThat(thread.get().getName()).startsWith("rattan-callback-");
    }

    /** The threads that ran a put's, a get's and a remove's {@code thenRun}, each attached before the reply came. */
    private static List<Thread> callbackThreads(FakeGateway gw, RattanClient client) throws Exception {
        Id key = RattanClient.key("threads");
        byte[] secret = "s".getBytes(UTF_8);
        client.putSync(key, "v".getBytes(UTF_8), TTL, secret);
        List<Thread> threads = new ArrayList<>();
        List<CompletableFuture<Void>> callbacks = new ArrayList<>();
        gw.hold(true);
        List<CompletableFuture<?>> calls = List.of(client.put(key, "w".getBytes(UTF_8), TTL),
                client.get(key, GetOptions.of(RoutingMode.DELAY_AWARE)),
                client.get(key), client.remove(key, RattanClient.valueHash("v".getBytes(UTF_8)), secret, TTL));
        for (CompletableFuture<?> call : calls) {
            callbacks.add(call.thenRun(() -> {
                synchronized (threads) {
                    threads.add(Thread.currentThread());
                }
            }));
        }
        await().atMost(WAIT).until(() -> gw.heldCount() >= calls.size());
        assertThat(callbacks).as("nothing completes while the replies are held").noneMatch(CompletableFuture::isDone);
        gw.releaseHeldInReverse();
        CompletableFuture.allOf(callbacks.toArray(CompletableFuture[]::new)).get(WAIT.toSeconds(), TimeUnit.SECONDS);
        synchronized (threads) {
            assertThat(threads).hasSize(calls.size());
            return List.copyOf(threads);
        }
    }

}
