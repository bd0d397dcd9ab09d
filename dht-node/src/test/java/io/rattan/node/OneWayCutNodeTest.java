package io.rattan.node;

import static io.rattan.node.NodeViews.leafIds;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.Counter;
import io.rattan.api.Address;
import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.core.env.Transport;
import io.rattan.core.msg.ClientMessages.ClientGet;
import io.rattan.core.msg.ClientMessages.ClientPut;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.RequestMessages.GetReply;
import io.rattan.core.msg.RequestMessages.PutReply;
import io.rattan.core.node.NodeConfig;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A one-way cut on real nodes (real sockets, real RocksDB): node X's messages to its peers are lost while theirs reach
 * it, as in the fault simulator's one-way partitions. To the others X is dead (it answers nothing), so they take a put
 * of a key X is the root of without it; X still hears them, so it may keep them in its leaf set and, once the cut
 * ends, answer gets of that key as if nothing had happened. The test shows, through the real path, that X counts the
 * cut when its requests are answered again ({@code rattan_peer_cuts_ended_total}) and that its next get of the key
 * reads the other replicas and returns the put (docs/testing.md, "A member cut off one way, heard but not answering").
 */
class OneWayCutNodeTest {

    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final int NODES = 5;

    @TempDir
    Path dir;

    private final List<RattanNode> nodes = new ArrayList<>();
    private final ScheduledExecutorService reader = Executors.newSingleThreadScheduledExecutor();

    @AfterEach
    void close() throws InterruptedException {
        reader.shutdownNow();
        reader.awaitTermination(10, TimeUnit.SECONDS);
        // All at once: closed one by one, the last waits for a hand-off to a neighbour already gone.
        CompletableFuture.allOf(nodes.stream().map(n -> CompletableFuture.runAsync(n::close))
                .toArray(CompletableFuture[]::new)).join();
    }

    @Test
    void aNodeCutOffOneWayReadsTheOtherReplicasOfItsKeysOnceItsRequestsAreAnsweredAgain() throws Exception {
        // Every node sees every other: a leaf set of 2 per side among 5 nodes.
        NodeConfig config = NodeConfig.defaults().withReplicas(3, 2).withLeafSetHalf(2);
        CutTransport[] cut = new CutTransport[1];
        for (int i = 0; i < NODES - 1; i++) {
            start(config, UnaryOperator.identity());
        }
        RattanNode x = start(config, t -> cut[0] = new CutTransport(t));
        await().atMost(WAIT).until(() -> nodes.stream().allMatch(n -> leafIds(n).size() == NODES - 1));
        Id key = keyWhoseRootIs(x);
        RattanNode y = closestOtherThan(x, key);

        cut[0].cutting = true;
        // Gets of the key through Y, five a second: once Y has declared X dead, they make it ping X (its lost
        // neighbour, a replica of the key) at most once a second, so X keeps hearing Y and keeps it a member, as a node
        // cut off one way by a partition does while the other side's traffic reaches it.
        reader.scheduleWithFixedDelay(() -> y.request(ClientGet.of(key)), 0, 200,
                TimeUnit.MILLISECONDS);
        await().atMost(WAIT).until(() -> nodes.stream().filter(n -> n != x)
                .noneMatch(n -> leafIds(n).contains(x.contact().id())));

        Bytes value = Bytes.utf8("put while X was cut off");
        Message put = y.request(new ClientPut(key, value, 600, Bytes.EMPTY)).get(60, TimeUnit.SECONDS);
        assertThat(put).isInstanceOf(PutReply.class);
        assertThat(((PutReply) put).status()).as(put.toString()).isEqualTo(Status.OK);
        assertThat(x.readStore(key, value.sha256()).get(30, TimeUnit.SECONDS))
                .as("X's own store: nobody sends X a copy while it is dead to them").isEmpty();
        assertThat(leafIds(x)).as("X's leaf set: Y spoke to it all along").contains(y.contact().id());

        double cutsBefore = count(x, "rattan.peer.cuts.ended");
        cut[0].cutting = false;
        await().atMost(WAIT).until(() -> count(x, "rattan.peer.cuts.ended") > cutsBefore);
        reader.shutdownNow();

        double widenedBefore = widened(x);
        Message got = x.request(ClientGet.of(key)).get(60, TimeUnit.SECONDS);
        assertThat(got).isInstanceOf(GetReply.class);
        assertThat(((GetReply) got).status()).as(got.toString()).isEqualTo(Status.OK);
        assertThat(((GetReply) got).values()).extracting(v -> v.value()).contains(value);
        assertThat(widened(x)).as("X read the other replicas: its view of the key was unsettled")
                .isGreaterThan(widenedBefore);
        assertThat(cut[0].lost.get()).as("frames X lost while cut off").isPositive();
    }

    private RattanNode start(NodeConfig config, UnaryOperator<Transport> hook) throws IOException {
        List<Address> bootstrap = nodes.isEmpty() ? List.of() : List.of(nodes.get(0).contact().address());
        NodeOptions options = NodeOptions.local(dir.resolve("node-" + nodes.size())).withConfig(config)
                .withBootstrap(bootstrap);
        RattanNode node = RattanNode.start(options, UnaryOperator.identity(), hook);
        nodes.add(node);
        await().atMost(WAIT).until(node::isJoined);
        return node;
    }

    /** The first of "cut-0", "cut-1", ... whose closest node is {@code x}. */
    private Id keyWhoseRootIs(RattanNode x) {
        for (int i = 0; ; i++) {
            Id key = Id.ofName("cut-" + i);
            if (closestOtherThan(null, key) == x) {
                return key;
            }
        }
    }

    private RattanNode closestOtherThan(RattanNode excluded, Id key) {
        RattanNode best = null;
        for (RattanNode n : nodes) {
            if (n != excluded && (best == null || n.contact().id().isCloserTo(key, best.contact().id()))) {
                best = n;
            }
        }
        return best;
    }


    private static double count(RattanNode node, String counter) {
        Counter c = node.meterRegistry().find(counter).counter();
        return c == null ? 0 : c.count();
    }

    private static double widened(RattanNode node) {
        Counter c = node.meterRegistry().find("rattan.gets.one.replica").tag("read", "unsettled").counter();
        return c == null ? 0 : c.count();
    }

    /** Loses what the node sends while {@link #cutting}: one direction of a partition. Called on the node's loop. */
    private static final class CutTransport implements Transport {
        private final Transport inner;
        private final AtomicLong lost = new AtomicLong();
        volatile boolean cutting;

        CutTransport(Transport inner) {
            this.inner = inner;
        }

        @Override
        public void send(Address to, Envelope envelope) {
            if (cutting) {
                lost.incrementAndGet();
                return;
            }
            inner.send(to, envelope);
        }
    }
}
