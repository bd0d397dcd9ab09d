package io.rattan.node;

import static io.rattan.node.NodeViews.leafIds;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.rattan.api.Address;
import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.core.msg.ClientMessages.ClientGet;
import io.rattan.core.msg.ClientMessages.ClientPut;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import io.rattan.core.msg.RequestMessages.GetReply;
import io.rattan.core.msg.RequestMessages.PutReply;
import io.rattan.core.node.NodeConfig;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node that lost its neighbours answers gets {@code UNAVAILABLE}, as it refuses puts, rather than answer from its own
 * store alone: with W = 2 an overlay that really has one node runs with W = 1 ({@code --single-node}), so a node alone
 * in a W = 2 overlay lacks whatever the others acknowledged since (docs/testing.md, "After a heal: the members that
 * came back are read", fix 4). Through the real path: three nodes on loopback sockets and RocksDB, two of which leave.
 */
class LostNeighboursNodeTest {

    private static final Duration WAIT = Duration.ofSeconds(90);

    @TempDir
    Path dir;

    private final List<RattanNode> nodes = new ArrayList<>();

    @AfterEach
    void close() {
        CompletableFuture.allOf(nodes.stream().map(n -> CompletableFuture.runAsync(n::close))
                .toArray(CompletableFuture[]::new)).join();
    }

    @Test
    void aNodeWhoseNeighboursAllLeftAnswersGetsUnavailable() throws Exception {
        NodeConfig config = NodeConfig.defaults().withReplicas(3, 2).withLeafSetHalf(2);
        for (int i = 0; i < 3; i++) {
            start(config);
        }
        RattanNode x = nodes.get(0);
        await().atMost(WAIT).until(() -> nodes.stream().allMatch(n -> leafIds(n).size() == 2));
        Id key = Id.ofName("lost-neighbours");
        Bytes value = Bytes.utf8("v");
        Message put = x.request(new ClientPut(key, value, 600, Bytes.EMPTY)).get(60, TimeUnit.SECONDS);
        assertThat(put).isInstanceOf(PutReply.class);
        assertThat(((PutReply) put).status()).as(put.toString()).isEqualTo(Status.OK);
        Message before = x.request(ClientGet.of(key)).get(60, TimeUnit.SECONDS);
        assertThat(before).as("with its neighbours").isInstanceOf(GetReply.class);
        assertThat(((GetReply) before).values()).extracting(v -> v.value()).containsExactly(value);

        List<RattanNode> others = List.copyOf(nodes.subList(1, 3));
        CompletableFuture.allOf(others.stream().map(n -> CompletableFuture.runAsync(n::close))
                .toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        nodes.removeAll(others);
        await().atMost(WAIT).until(() -> leafIds(x).isEmpty());

        Message after = x.request(ClientGet.of(key)).get(60, TimeUnit.SECONDS);
        assertThat(after).as("alone, though its store holds the value").isInstanceOf(ErrorReply.class);
        assertThat(((ErrorReply) after).status()).isEqualTo(Status.UNAVAILABLE);
        assertThat(x.readStore(key, value.sha256()).get(30, TimeUnit.SECONDS)).isPresent();
    }

    private void start(NodeConfig config) throws IOException {
        List<Address> bootstrap = nodes.isEmpty() ? List.of() : List.of(nodes.get(0).contact().address());
        NodeOptions options = NodeOptions.local(dir.resolve("node-" + nodes.size())).withConfig(config)
                .withBootstrap(bootstrap);
        RattanNode node = RattanNode.start(options, UnaryOperator.identity(), UnaryOperator.identity());
        nodes.add(node);
        await().atMost(WAIT).until(node::isJoined);
    }
}
