package io.rattan.core.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.RoutingMode;
import io.rattan.api.SignedOp;
import io.rattan.api.Status;
import io.rattan.core.msg.ClientMessages.ClientGet;
import io.rattan.core.msg.ClientMessages.ClientPut;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.NamespaceDefinition;
import io.rattan.core.msg.NamespaceMessages.InNamespace;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import io.rattan.core.msg.RequestMessages.GetReply;
import io.rattan.core.msg.RequestMessages.PutReply;
import io.rattan.core.owned.OwnerSignatures;
import io.rattan.core.virtual.LatencyModel;
import io.rattan.core.virtual.VirtualWorld;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Namespaces in a virtual world: a definition made at one node reaches every node (and one that joins later); values
 * of two namespaces and the default never mix, even under the same key; each namespace's k holds, counted from every
 * node's store once repair has run; a retired namespace is dropped everywhere.
 */
class NamespaceWorldTest {

    private static final long SECOND = 1_000_000_000L;
    private static final NamespaceDefinition ONE = new NamespaceDefinition("one", 1, 1, false, 3600, 4096,
            RoutingMode.GREEDY, false);
    private static final NamespaceDefinition THREE = new NamespaceDefinition("three", 3, 2, true, 3600, 512,
            RoutingMode.DELAY_AWARE, false);
    private static final int KEYS = 30;

    private VirtualWorld world;

    @BeforeEach
    void world() {
        world = new VirtualWorld(7, NodeConfig.defaults().withLeafSetHalf(4), LatencyModel.constant(5_000_000L));
        world.addNodes(20);
        world.runFor(5 * SECOND);
    }

    private <T> T onLoop(Supplier<T> call) {
        Object[] out = new Object[1];
        world.scheduler().execute(() -> out[0] = call.get());
        world.runFor(1_000_000L);
        @SuppressWarnings("unchecked")
        T t = (T) out[0];
        return t;
    }

    private boolean everyNodeKnows(NamespaceDefinition d) {
        return world.liveIndexes().stream().allMatch(i -> world.node(i).namespaces().contains(d));
    }

    private Message put(int via, String namespace, Id key, String value) {
        ClientPut p = new ClientPut(key, Bytes.utf8(value), 600, Bytes.EMPTY);
        return world.request(via, namespace.equals(NamespaceDefinition.DEFAULT) ? p : new InNamespace(namespace, p));
    }

    private List<String> get(int via, String namespace, Id key) {
        Message g = world.request(via, new InNamespace(namespace, ClientGet.of(key)));
        assertThat(g).as(String.valueOf(g)).isInstanceOf(GetReply.class);
        return ((GetReply) g).values().stream().map(v -> utf8(v.value())).toList();
    }

    private static String utf8(Bytes b) {
        return new String(b.toByteArray(), java.nio.charset.StandardCharsets.UTF_8);
    }

    private long copies(String namespace) {
        return world.liveIndexes().stream()
                .mapToLong(i -> world.node(i).status().namespaceRecords().getOrDefault(namespace, 0L)).sum();
    }

    @Test
    void definitionsReachEveryNodeAndEachNamespaceKeepsItsOwnValuesAndItsOwnK() {
        assertThat(onLoop(() -> world.node(0).defineNamespace(ONE))).isEqualTo(NamespaceChange.CREATED);
        assertThat(onLoop(() -> world.node(5).defineNamespace(THREE))).isEqualTo(NamespaceChange.CREATED);
        assertThat(world.runUntil(() -> everyNodeKnows(ONE) && everyNodeKnows(THREE), 30 * SECOND)).isTrue();
        assertThat(onLoop(() -> world.node(9).defineNamespace(ONE))).isEqualTo(NamespaceChange.UNCHANGED);
        NamespaceDefinition other = new NamespaceDefinition("one", 2, 1, false, 3600, 4096, RoutingMode.GREEDY, false);
        assertThat(onLoop(() -> world.node(9).defineNamespace(other))).isEqualTo(NamespaceChange.CONFLICT);
        NamespaceDefinition tooWide = new NamespaceDefinition("wide", 6, 1, false, 60, 64, RoutingMode.GREEDY, false);
        assertThatThrownBy(() -> world.node(9).defineNamespace(tooWide)).hasMessageContaining("leaf set");

        for (int k = 0; k < KEYS; k++) {
            Id key = Id.ofName("shared-" + k);
            for (String ns : List.of(NamespaceDefinition.DEFAULT, "one", "three")) {
                Message reply = put(k % 20, ns, key, ns + " " + k);
                assertThat(reply).as(ns + " " + k + ": " + reply).isInstanceOf(PutReply.class);
                assertThat(((PutReply) reply).status()).isEqualTo(Status.OK);
            }
        }
        world.runFor(30 * SECOND);
        assertThat(copies("one")).as("k = 1").isEqualTo(KEYS);
        assertThat(copies("three")).as("k = 3").isEqualTo(3L * KEYS);
        for (int k = 0; k < KEYS; k += 7) {
            Id key = Id.ofName("shared-" + k);
            assertThat(get((k + 3) % 20, "one", key)).containsExactly("one " + k);
            assertThat(get((k + 5) % 20, "three", key)).containsExactly("three " + k);
            Message g = world.request(k % 20, ClientGet.of(key));
            assertThat(((GetReply) g).values()).extracting(v -> utf8(v.value())).containsExactly("default " + k);
        }
        // A namespace's own limits: "three" takes values of at most 512 bytes.
        Message big = world.request(2, new InNamespace("three", new ClientPut(Id.ofName("big"),
                Bytes.wrap(new byte[600]), 60, Bytes.EMPTY)));
        assertThat(big).isInstanceOf(ErrorReply.class);
        assertThat(((ErrorReply) big).status()).isEqualTo(Status.TOO_LARGE);

        int late = world.addNode();
        assertThat(world.runUntil(() -> world.node(late).namespaces().contains(THREE), 30 * SECOND))
                .as("a node that joins later learns the definitions").isTrue();
    }

    @Test
    void aRetiredNamespaceIsDroppedEverywhereAndItsNameIsNotReused() {
        assertThat(onLoop(() -> world.node(3).defineNamespace(ONE))).isEqualTo(NamespaceChange.CREATED);
        assertThat(world.runUntil(() -> everyNodeKnows(ONE), 30 * SECOND)).isTrue();
        Id key = Id.ofName("soon gone");
        assertThat(((PutReply) put(4, "one", key, "v")).status()).isEqualTo(Status.OK);
        assertThat(onLoop(() -> world.node(11).retireNamespace("one"))).isEqualTo(NamespaceChange.RETIRED);
        assertThat(world.runUntil(() -> everyNodeKnows(ONE.retire()), 30 * SECOND)).isTrue();
        assertThat(copies("one")).isZero();
        Message g = world.request(6, new InNamespace("one", ClientGet.of(key)));
        assertThat(g).isInstanceOf(ErrorReply.class);
        assertThat(((ErrorReply) g).status()).isEqualTo(Status.NOT_FOUND);
        assertThat(onLoop(() -> world.node(0).defineNamespace(ONE))).isEqualTo(NamespaceChange.RETIRED);
    }

    @Test
    void repairKeepsEachNamespacesKAndAMemoryNamespaceIsRefilledAfterARestart() {
        NamespaceDefinition two = new NamespaceDefinition("two", 2, 2, false, 3600, 1024, RoutingMode.DELAY_AWARE,
                false);
        assertThat(onLoop(() -> world.node(1).defineNamespace(two))).isEqualTo(NamespaceChange.CREATED);
        assertThat(onLoop(() -> world.node(2).defineNamespace(THREE))).isEqualTo(NamespaceChange.CREATED);
        assertThat(world.runUntil(() -> everyNodeKnows(two) && everyNodeKnows(THREE), 30 * SECOND)).isTrue();
        for (int k = 0; k < KEYS; k++) {
            for (String ns : List.of("two", "three")) {
                Message reply = put(k % 20, ns, Id.ofName("kept-" + k), ns + " " + k);
                assertThat(((PutReply) reply).replicas()).as("W of " + ns).isGreaterThanOrEqualTo(2);
            }
        }
        world.runFor(30 * SECOND);
        assertThat(copies("two")).isEqualTo(2L * KEYS);
        assertThat(copies("three")).isEqualTo(3L * KEYS);

        // A crash: the survivors copy what the dead node held to the next nodes, k of each namespace again.
        int dead = busiest("three");
        world.kill(dead);
        world.runFor(90 * SECOND);
        assertThat(copies("two")).as("k = 2 after a crash").isEqualTo(2L * KEYS);
        assertThat(copies("three")).as("k = 3 after a crash").isEqualTo(3L * KEYS);

        // A restart: a disk namespace's store is still there, a memory namespace's is empty until repair refills it.
        int restarted = busiest("three");
        long diskBefore = world.node(restarted).status().namespaceRecords().get("two");
        world.kill(restarted);
        world.restart(restarted);
        world.runFor(1_000_000L);
        assertThat(world.node(restarted).status().namespaceRecords()).containsEntry("two", diskBefore)
                .containsEntry("three", 0L);
        world.runFor(90 * SECOND);
        assertThat(world.node(restarted).status().namespaceRecords().get("three")).isPositive();
        assertThat(copies("three")).isEqualTo(3L * KEYS);
    }

    @Test
    void anOwnersSignatureHoldsInTheNamespaceItWasMadeForOnly() {
        assertThat(onLoop(() -> world.node(0).defineNamespace(ONE))).isEqualTo(NamespaceChange.CREATED);
        assertThat(onLoop(() -> world.node(0).defineNamespace(THREE))).isEqualTo(NamespaceChange.CREATED);
        assertThat(world.runUntil(() -> everyNodeKnows(ONE) && everyNodeKnows(THREE), 30 * SECOND)).isTrue();
        Bytes owner = Bytes.fromHex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60");
        Id key = Id.ofName("owned");
        Bytes data = Bytes.utf8("mine");
        long expiry = world.scheduler().epochMillis() / 1000 + 600;
        ClientPut signedForOne = new ClientPut(key, data, 0, Bytes.EMPTY, OwnerSignatures.sign(owner, SignedOp.PUT,
                "one", key, 1, 1, expiry, data.sha256()));
        Message inThree = world.request(4, new InNamespace("three", signedForOne));
        assertThat(inThree instanceof PutReply p && p.status() == Status.OK).as("signed for another namespace: "
                + inThree).isFalse();
        Message inOne = world.request(4, new InNamespace("one", signedForOne));
        assertThat(inOne).as(String.valueOf(inOne)).isInstanceOf(PutReply.class);
        assertThat(((PutReply) inOne).status()).isEqualTo(Status.OK);
        assertThat(get(9, "one", key)).containsExactly("mine");
        assertThat(get(9, "three", key)).isEmpty();
    }

    @Test
    void twoDefinitionsMadeAtOnceEndAsOneEverywhere() {
        NamespaceDefinition wide = new NamespaceDefinition("one", 3, 2, true, 60, 64, RoutingMode.GREEDY, false);
        world.scheduler().execute(() -> world.node(0).defineNamespace(wide));
        world.scheduler().execute(() -> world.node(10).defineNamespace(ONE));
        assertThat(world.runUntil(() -> everyNodeKnows(ONE), 30 * SECOND)).as("the fewer replicas win").isTrue();
        Message put = put(4, "one", Id.ofName("after"), "v");
        assertThat(((PutReply) put).status()).isEqualTo(Status.OK);
        world.runFor(20 * SECOND);
        assertThat(copies("one")).isEqualTo(1);
    }

    @Test
    void aNodeThatLeavesHandsOnEachNamespaceAndIsGone() {
        assertThat(onLoop(() -> world.node(0).defineNamespace(THREE))).isEqualTo(NamespaceChange.CREATED);
        assertThat(world.runUntil(() -> everyNodeKnows(THREE), 30 * SECOND)).isTrue();
        for (int k = 0; k < KEYS; k++) {
            assertThat(((PutReply) put(k % 20, "three", Id.ofName("handed-" + k), "v" + k)).status())
                    .isEqualTo(Status.OK);
        }
        world.runFor(30 * SECOND);
        int leaving = busiest("three");
        Id gone = world.contact(leaving).id();
        world.leave(leaving);
        world.runFor(5 * SECOND);
        assertThat(world.liveIndexes()).noneMatch(i -> world.node(i).status().leafSet().stream()
                .anyMatch(c -> c.id().equals(gone)));
        assertThat(copies("three")).isEqualTo(3L * KEYS);
    }

    private int busiest(String namespace) {
        return world.liveIndexes().stream().max(java.util.Comparator.comparingLong(
                i -> world.node(i).status().namespaceRecords().getOrDefault(namespace, 0L))).orElseThrow();
    }
}
