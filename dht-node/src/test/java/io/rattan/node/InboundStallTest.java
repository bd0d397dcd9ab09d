package io.rattan.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Address;
import io.rattan.api.GetOptions;
import io.rattan.api.Id;
import io.rattan.api.RoutingMode;
import io.rattan.client.GetResult;
import io.rattan.client.RattanClient;
import io.rattan.core.slow.SlowTrace;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The slow-node hook on a real node: a trace read from a file makes the node answer a client no sooner than the
 * trace says, one input after another. Only lower bounds are asserted: the hook guarantees them, the machine cannot
 * shorten them.
 */
class InboundStallTest {

    private static final long DELAY_MS = 200;

    @TempDir
    Path dir;

    @Test
    void aTracedNodeAnswersNoSoonerThanItsSlowPeriodSays() throws Exception {
        Path trace = dir.resolve("slow.trace");
        Files.writeString(trace, SlowTrace.HEADER + "\n# node 0 is slow for ten minutes\n0 0 600000 fixed " + DELAY_MS
                + "\n1 0 600000 fixed 60000\n", StandardCharsets.UTF_8);
        NodeOptions options = NodeOptions.singleNode(dir.resolve("node"))
                .withInboundSlowness(InboundSlowness.forNode(SlowTrace.read(trace), 0, -1));
        assertThat(options.inboundSlowness().periods()).as("only node 0's line").hasSize(1);
        try (RattanNode node = RattanNode.start(options);
             RattanClient client = RattanClient.builder()
                     .gateway(new Address("127.0.0.1", node.gatewayAddress().getPort()))
                     .build()) {
            Id key = Id.ofName("slow");
            client.putSync(key, "v".getBytes(StandardCharsets.UTF_8), Duration.ofMinutes(5));
            GetOptions unhedged = GetOptions.of(RoutingMode.DELAY_AWARE);

            for (int i = 0; i < 3; i++) {
                long start = System.nanoTime();
                GetResult r = client.get(key, unhedged).get();
                assertThat(r.values()).hasSize(1);
                assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(
                        Duration.ofMillis(DELAY_MS));
            }

            int n = 5;
            long start = System.nanoTime();
            List<CompletableFuture<GetResult>> gets = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                gets.add(client.get(key, unhedged));
            }
            CompletableFuture.allOf(gets.toArray(CompletableFuture[]::new)).get();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("a FIFO server: each get waits its turn")
                    .isGreaterThanOrEqualTo(Duration.ofMillis(n * DELAY_MS));
        }
    }

    @Test
    void withoutATraceTheHookIsOff() {
        assertThat(NodeOptions.local(dir).inboundSlowness().isOff()).isTrue();
    }
}
