package io.rattan.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

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
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * An iterative get on real nodes (loopback sockets, RocksDB) while every other node's event loop is stalled for 2 s,
 * as JVMs stall each other on a loaded machine: every question goes past its RTO (at most the 1 s before any sample),
 * well within the 5 s request timeout. The gateway asks the closest candidates once more with the request timeout,
 * and the get returns the value instead of 503 (IterativeGateway).
 */
class IterativeStalledCandidatesNodeTest {

    private static final long STALL_MILLIS = 2_000;

    @TempDir
    Path dir;

    @Test
    @Timeout(120)
    void anIterativeGetWhoseCandidatesAreAllStalledPastTheirRtoReturnsTheValue() throws IOException {
        Id key = Id.ofName("stalled-candidates");
        Bytes value = Bytes.utf8("answered late");
        try (LocalCluster cluster = LocalCluster.start(5, dir, NodeConfig.defaults().withLeafSetHalf(3)
                .withReplicas(3, 2))) {
            Message put = cluster.node(0).request(new ClientPut(key, value, 600, Bytes.EMPTY)).join();
            assertThat(put).isInstanceOfSatisfying(PutReply.class, p -> assertThat(p.status()).isEqualTo(Status.OK));
            await().atMost(Duration.ofSeconds(30)).until(() -> cluster.nodes().stream()
                    .filter(n -> n.readStore(key, value.sha256()).join().isPresent()).count() >= 3);
            List<RattanNode> byDistance = new ArrayList<>(cluster.nodes());
            byDistance.sort(Comparator.comparing((RattanNode n) -> n.contact().id().distanceTo(key)));
            RattanNode gateway = byDistance.get(byDistance.size() - 1);

            List<CompletableFuture<Object>> stalls = new ArrayList<>();
            for (RattanNode n : cluster.nodes()) {
                if (n != gateway) {
                    stalls.add(n.call(node -> {
                        // A stalled loop, as a GC pause or a starved JVM: what this test is about.
                        sleep(STALL_MILLIS);
                        return null;
                    }));
                }
            }
            Message reply = gateway.request(ClientGet.of(key, GetOptions.of(RoutingMode.ITERATIVE).withParallelism(3)))
                    .join();
            stalls.forEach(CompletableFuture::join);

            assertThat(reply).as("an iterative get through the node farthest from the key")
                    .isInstanceOf(GetReply.class);
            GetReply get = (GetReply) reply;
            assertThat(get.status()).isEqualTo(Status.OK);
            assertThat(get.values()).extracting(v -> v.value()).containsExactly(value);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
