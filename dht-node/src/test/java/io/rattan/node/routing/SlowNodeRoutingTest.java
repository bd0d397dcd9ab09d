package io.rattan.node.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Counter;
import io.rattan.api.Bytes;
import io.rattan.api.GetOptions;
import io.rattan.api.Id;
import io.rattan.api.RoutingMode;
import io.rattan.api.Status;
import io.rattan.core.msg.ClientMessages.ClientGet;
import io.rattan.core.msg.ClientMessages.ClientPut;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.RequestMessages.GetReply;
import io.rattan.core.msg.RequestMessages.PutReply;
import io.rattan.core.node.NodeConfig;
import io.rattan.node.NodeOptions;
import io.rattan.node.RattanNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real node runs the same policies as the simulator: on 12 Netty nodes where one holds every message it sends
 * for 200 ms (far above loopback RTTs), delay-aware gets are routed through it far less often than greedy gets. Half
 * the keys are the slow node's own (it is their root), so greedy has it as next hop often, whatever the random ids.
 * Asserts on routing decisions (gets the slow node received, from its metrics), never on latency.
 */
class SlowNodeRoutingTest {

    private static final int NODES = 12;
    private static final int SLOW = 5;
    private static final int BATCH = 20;

    @TempDir
    Path dir;
    private final List<RattanNode> nodes = new ArrayList<>();

    @AfterEach
    void stop() {
        for (RattanNode n : nodes) {
            n.halt();
        }
    }

    // The minimum RTO (1 s) is far above the slow node's 200 ms, so it never times out and never becomes a suspect
    // that both modes would skip: the two modes differ only by their choice among live neighbours.
    @Test
    void delayAwareGetsAvoidASlowNodeThatGreedyGetsUse() throws Exception {
        NodeConfig config = NodeConfig.defaults().withLeafSetHalf(3).withPeriods(200, 1_000, 1_000)
                .withTimeouts(10_000, 1_000, 1_000, 2_000);
        for (int i = 0; i < NODES; i++) {
            NodeOptions o = NodeOptions.local(dir.resolve("n" + i)).withConfig(config);
            if (i > 0) {
                o = o.withBootstrap(List.of(nodes.get(0).contact().address()));
            }
            if (i == SLOW) {
                o = o.withPeerSendDelay(Duration.ofMillis(200));
            }
            RattanNode n = RattanNode.start(o);
            nodes.add(n);
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).until(n::isJoined);
        }
        SplittableRandom random = new SplittableRandom(3);
        List<Id> keys = new ArrayList<>();
        Id slowId = nodes.get(SLOW).contact().id();
        inBatches(300, i -> {
            // Node ids are random, so the share of the ring the slow node owns varies from run to run, down to almost
            // nothing (once greedy sent it 1 get in 1,000). Half the keys lie just past its id, so it is their root
            // and greedy gets from gateways that are no replica end there, whatever the ids.
            Id key = i % 2 == 0 ? Id.random(random) : slowId.plus(new Id(0, 0, random.nextLong() & 0xFFFF_FFFFL));
            keys.add(key);
            return nodes.get(healthyGateway(random)).request(new ClientPut(key, Bytes.utf8("v" + i), 600,
                    Bytes.EMPTY));
        }, put -> assertThat(((PutReply) put).status()).isEqualTo(Status.OK));
        // Every value on its k replicas first: a replica that holds nothing of a key yet hands a get on to the root,
        // which for half the keys is the slow node, whatever the routing mode.
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
                .until(() -> everyValueOnItsReplicas(keys, config.replicas()));
        // Warm up: every node measures the slow node (greedy gets, leaf exchanges and probes all sample it).
        gets(RoutingMode.GREEDY, keys, random, 200);

        double greedyCount = throughSlow(RoutingMode.GREEDY, keys, random);
        double delayAwareCount = throughSlow(RoutingMode.DELAY_AWARE, keys, random);
        System.out.printf("gets received by the slow node out of 1000: greedy %.0f, delay-aware %.0f%n", greedyCount,
                delayAwareCount);
        assertThat(greedyCount).as("greedy gets received by the slow node").isGreaterThanOrEqualTo(50);
        assertThat(delayAwareCount).as("delay-aware gets received by the slow node (greedy: %s)", greedyCount)
                .isLessThanOrEqualTo(greedyCount / 4);
    }

    /** Whether the value put under each of {@code keys} (value {@code "v" + i} under key i) is held by k nodes. */
    private boolean everyValueOnItsReplicas(List<Id> keys, int k) {
        for (int i = 0; i < keys.size(); i++) {
            Bytes hash = Bytes.utf8("v" + i).sha256();
            int copies = 0;
            for (RattanNode n : nodes) {
                copies += n.readStore(keys.get(i), hash).join().isPresent() ? 1 : 0;
            }
            if (copies < k) {
                return false;
            }
        }
        return true;
    }

    private double throughSlow(RoutingMode mode, List<Id> keys, SplittableRandom random) throws Exception {
        double before = received(mode);
        gets(mode, keys, random, 1_000);
        return received(mode) - before;
    }

    private double received(RoutingMode mode) {
        Counter c = nodes.get(SLOW).meterRegistry().find("rattan.gets.routed.received")
                .tag("routing", mode.label()).counter();
        return c == null ? 0 : c.count();
    }

    private void gets(RoutingMode mode, List<Id> keys, SplittableRandom random, int n) throws Exception {
        inBatches(n, i -> nodes.get(healthyGateway(random)).request(
                ClientGet.of(keys.get(random.nextInt(keys.size())), GetOptions.of(mode))), reply -> {
                    assertThat(reply).isInstanceOf(GetReply.class);
                    assertThat(((GetReply) reply).values()).hasSize(1);
                });
    }

    /**
     * Sends requests {@code 0..n-1}, {@value #BATCH} at a time concurrently, and checks every reply. Those through the
     * slow node wait 200 ms or more each: one at a time they took minutes on a loaded machine, while loopback RTTs
     * stay far under the slow node's at this load.
     */
    private static void inBatches(int n, IntFunction<CompletableFuture<Message>> send, Consumer<Message> check)
            throws Exception {
        for (int done = 0; done < n; done += BATCH) {
            List<CompletableFuture<Message>> batch = new ArrayList<>();
            for (int i = done; i < Math.min(n, done + BATCH); i++) {
                batch.add(send.apply(i));
            }
            for (CompletableFuture<Message> f : batch) {
                check.accept(f.get(30, TimeUnit.SECONDS));
            }
        }
    }

    private int healthyGateway(SplittableRandom random) {
        int g;
        do {
            g = random.nextInt(NODES);
        } while (g == SLOW);
        return g;
    }
}
