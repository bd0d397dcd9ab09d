package io.rattan.core.behaviour;

import static org.assertj.core.api.Assertions.assertThat;

import io.rattan.api.Bytes;
import io.rattan.api.GetOptions;
import io.rattan.api.Id;
import io.rattan.api.RoutingMode;
import io.rattan.api.Status;
import io.rattan.core.msg.ClientMessages.ClientGet;
import io.rattan.core.msg.ClientMessages.ClientPut;
import io.rattan.core.msg.ClientMessages.ClientRemove;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import io.rattan.core.msg.RequestMessages.GetReply;
import io.rattan.core.msg.RequestMessages.PutReply;
import io.rattan.core.msg.RequestMessages.RemoveReply;
import io.rattan.core.msg.RequestMessages.ValueEntry;
import io.rattan.core.msg.SecretBinding;
import io.rattan.core.net.Contact;
import io.rattan.core.node.NodeConfig;
import io.rattan.core.node.NodeStatus;
import io.rattan.core.store.StoredRecord;
import io.rattan.core.store.TestSlots;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The behaviour of a Rattan overlay, written once and run on every host: the virtual world with hundreds of nodes
 * and real Netty/RocksDB nodes on loopback. Subclasses say how to start a cluster and how big.
 */
public abstract class ClusterBehaviourSuite {

    private static final int K = 4;

    protected ClusterHarness cluster;
    private final SplittableRandom random = new SplittableRandom(42);

    /** Starts {@code nodes} joined nodes with this configuration. */
    protected abstract ClusterHarness start(int nodes, NodeConfig config);

    /** How many nodes the suite runs with on this host. */
    protected abstract int nodes();

    /** How many values the put/get tests store. */
    protected abstract int values();

    /** How many gateways each value is read back through (all nodes when at least {@link #nodes()}). */
    protected abstract int readsPerValue();

    /**
     * The configuration: a leaf set small enough relative to the cluster that gets really route. Maintenance
     * periods are short so that repair finishes quickly on real nodes.
     */
    protected NodeConfig config() {
        return NodeConfig.defaults().withLeafSetHalf(4).withReplicas(4, 2).withPeriods(500, 1_000, 1_000);
    }

    /** Lowest mean overlay hops per get that shows the cluster really routes. */
    protected abstract double minimumMeanHops();

    @AfterEach
    void closeCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    record Stored(Id key, Bytes value, Bytes secret) {
        Bytes hash() {
            return value.sha256();
        }

        /** Where a store holds it ({@link StoredRecord#slot}), and the tombstone of its remove. */
        Bytes slot() {
            return TestSlots.of(key, value, secret);
        }
    }

    private Stored putRandom(int gateway, int ttlSeconds, boolean withSecret) {
        Id key = Id.random(random);
        byte[] raw = new byte[16 + random.nextInt(200)];
        random.nextBytes(raw);
        Bytes value = Bytes.wrap(raw);
        Bytes secret = withSecret ? Bytes.utf8("secret-" + random.nextLong()) : Bytes.EMPTY;
        Message reply = cluster.request(gateway, new ClientPut(key, value, ttlSeconds,
                withSecret ? SecretBinding.of(secret, key, value.sha256()) : Bytes.EMPTY));
        assertThat(reply).as("put through node %d", gateway).isInstanceOf(PutReply.class);
        assertThat(((PutReply) reply).status()).isEqualTo(Status.OK);
        assertThat(((PutReply) reply).replicas()).isGreaterThanOrEqualTo(2);
        return new Stored(key, value, secret);
    }

    private int liveGateway() {
        while (true) {
            int i = random.nextInt(cluster.size());
            if (cluster.isAlive(i)) {
                return i;
            }
        }
    }

    /**
     * Sends a request, retrying much as {@code RattanClient} does (it also retries INTERNAL, with jittered backoff):
     * an answer of UNAVAILABLE or TIMEOUT (a node that just died and is not yet declared dead can cause either) is
     * retried at another live gateway, a second later.
     */
    private Message requestRetryingLikeTheClient(Message request) {
        Message reply = null;
        for (int attempt = 0; attempt < 10; attempt++) {
            reply = cluster.request(liveGateway(), request);
            if (!(reply instanceof ErrorReply e)
                    || (e.status() != Status.UNAVAILABLE && e.status() != Status.TIMEOUT)) {
                return reply;
            }
            cluster.pass(Duration.ofSeconds(1));
        }
        return reply;
    }

    private GetReply get(int gateway, Id key) {
        Message reply = cluster.request(gateway, ClientGet.of(key));
        assertThat(reply).as("get through node %d: %s", gateway, reply).isInstanceOf(GetReply.class);
        return (GetReply) reply;
    }

    private List<Bytes> valuesOf(GetReply r) {
        return r.values().stream().map(ValueEntry::value).collect(Collectors.toList());
    }

    private int copies(Stored s) {
        int n = 0;
        for (int i = 0; i < cluster.size(); i++) {
            if (cluster.isAlive(i)) {
                Optional<StoredRecord> r = cluster.read(i, s.key(), s.slot());
                if (r.isPresent() && !r.get().tombstone()) {
                    n++;
                }
            }
        }
        return n;
    }

    /** The k live nodes closest to {@code key}, closest first: its replicas. */
    private List<Integer> replicasOf(Id key) {
        return replicasOf(key, liveIds());
    }

    /**
     * Every live node's id by index, each asked of its node once: a node's status is built afresh at each call (and is
     * a round trip on real nodes), too costly to ask in a sort's every comparison.
     */
    private Map<Integer, Id> liveIds() {
        Map<Integer, Id> ids = new LinkedHashMap<>();
        for (int i = 0; i < cluster.size(); i++) {
            if (cluster.isAlive(i)) {
                ids.put(i, cluster.status(i).self().id());
            }
        }
        return ids;
    }

    /** The k nodes of {@code liveIds} closest to {@code key}, closest first. */
    private static List<Integer> replicasOf(Id key, Map<Integer, Id> liveIds) {
        List<Integer> live = new ArrayList<>(liveIds.keySet());
        live.sort((a, b) -> {
            Id ia = liveIds.get(a);
            Id ib = liveIds.get(b);
            return ia.equals(ib) ? 0 : ia.isCloserTo(key, ib) ? -1 : 1;
        });
        return live.subList(0, Math.min(K, live.size()));
    }

    /** True when every value is {@link #replicated}; the live nodes' ids asked once for all of them. */
    private boolean allReplicated(List<Stored> stored) {
        Map<Integer, Id> ids = liveIds();
        return stored.stream().allMatch(s -> replicated(s, ids));
    }

    /** True when the k live nodes closest to the key each hold the value (former replicas may hold extra copies). */
    private boolean replicated(Stored s) {
        return replicated(s, liveIds());
    }

    private boolean replicated(Stored s, Map<Integer, Id> liveIds) {
        for (int i : replicasOf(s.key(), liveIds)) {
            Optional<StoredRecord> r = cluster.read(i, s.key(), s.slot());
            if (r.isEmpty() || r.get().tombstone()) {
                return false;
            }
        }
        return true;
    }

    private List<Stored> putMany(int n) {
        List<Stored> stored = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            stored.add(putRandom(liveGateway(), 3600, false));
        }
        return stored;
    }

    private int[] readers(int count) {
        int live = (int) java.util.stream.IntStream.range(0, cluster.size()).filter(cluster::isAlive).count();
        int[] out = new int[Math.min(count, live)];
        if (count >= cluster.size()) {
            int j = 0;
            for (int i = 0; i < cluster.size(); i++) {
                if (cluster.isAlive(i) && j < out.length) {
                    out[j++] = i;
                }
            }
            return out;
        }
        for (int i = 0; i < out.length; i++) {
            out[i] = liveGateway();
        }
        return out;
    }

    /** Reads every value through several gateways; returns the mean hops. */
    private double readAll(List<Stored> stored) {
        long hops = 0;
        long gets = 0;
        for (Stored s : stored) {
            for (int gw : readers(readsPerValue())) {
                GetReply r = get(gw, s.key());
                assertThat(r.status()).isEqualTo(Status.OK);
                assertThat(valuesOf(r)).as("values of %s through node %d", s.key().shortHex(), gw)
                        .containsExactly(s.value());
                hops += r.hops();
                gets++;
            }
        }
        return (double) hops / gets;
    }

    @Test
    void everyNodeJoinsAndLeafSetsMatchTheRing() {
        cluster = start(nodes(), config());
        awaitLeafSetsMatchTheRing(config().leafSetHalf());
    }

    /**
     * Waits until every node has joined and its leaf set is the ring's: since contacts learned second hand are probed
     * before they enter (issue 18), leaf sets fill a round trip or more after the joins.
     */
    private void awaitLeafSetsMatchTheRing(int half) {
        cluster.await("leaf sets converge to the ring", () -> {
            List<Contact> all = new ArrayList<>();
            for (int i = 0; i < cluster.size(); i++) {
                all.add(cluster.status(i).self());
            }
            for (int i = 0; i < cluster.size(); i++) {
                NodeStatus st = cluster.status(i);
                if (!st.joined() || !expectedLeafSet(st.self(), all, half).equals(ids(st.leafSet()))) {
                    return false;
                }
            }
            return true;
        });
    }

    private static java.util.Set<Id> ids(List<Contact> cs) {
        return cs.stream().map(Contact::id).collect(Collectors.toSet());
    }

    private static java.util.Set<Id> expectedLeafSet(Contact self, List<Contact> all, int half) {
        java.util.Set<Id> out = new java.util.HashSet<>();
        List<Id> others = all.stream().map(Contact::id).filter(id -> !id.equals(self.id()))
                .collect(Collectors.toList());
        others.sort(Comparator.comparing(id -> id.minus(self.id())));
        out.addAll(others.subList(0, Math.min(half, others.size())));
        others.sort(Comparator.comparing(id -> self.id().minus(id)));
        out.addAll(others.subList(0, Math.min(half, others.size())));
        return out;
    }

    @Test
    void everyPutIsReadableThroughEveryGatewayAndGetsRoute() {
        cluster = start(nodes(), config());
        List<Stored> stored = putMany(values());
        double meanHops = readAll(stored);
        assertThat(meanHops).as("mean overlay hops per get").isGreaterThanOrEqualTo(minimumMeanHops());
        // Every value sits on exactly k nodes once puts are acknowledged and repair has settled.
        cluster.await("the k closest nodes hold every value", () -> allReplicated(stored));
    }

    @Test
    void killedNodesAreRepairedAroundAndNothingIsLost() {
        cluster = start(nodes(), config());
        List<Stored> stored = putMany(values());
        cluster.await("every value on its k closest nodes before the kill",
                () -> allReplicated(stored));
        int victims = Math.max(2, nodes() / 10);
        List<Integer> killed = new ArrayList<>();
        while (killed.size() < victims) {
            int v = 1 + random.nextInt(cluster.size() - 1);
            if (!killed.contains(v)) {
                killed.add(v);
                cluster.kill(v);
            }
        }
        cluster.await("every value on its k closest live nodes again",
                () -> allReplicated(stored));
        assertThat(stored).allMatch(s -> copies(s) >= K);
        readAll(stored);
    }

    @Test
    void aGracefulLeaveHandsItsValuesToTheNewReplicasAtOnce() {
        cluster = start(nodes(), config());
        List<Stored> stored = putMany(Math.min(values(), 200));
        cluster.await("k copies", () -> allReplicated(stored));
        int leaver = -1;
        for (int i = 1; i < cluster.size() && leaver < 0; i++) {
            if (cluster.read(i, stored.get(0).key(), stored.get(0).slot()).isPresent()) {
                leaver = i;
            }
        }
        assertThat(leaver).isPositive();
        cluster.leave(leaver);
        // The leaver's hand-off and its goodbye (neighbours repair at once) restore k copies; nothing is lost.
        cluster.await("every value on its k closest live nodes after the leave",
                () -> allReplicated(stored));
        readAll(stored);
    }

    @Test
    void removeNeedsTheSecretAndSticksOnEveryReplica() {
        cluster = start(nodes(), config());
        Stored s = putRandom(liveGateway(), 3600, true);
        Stored open = putRandom(liveGateway(), 3600, false);
        cluster.await("k copies", () -> replicated(s) && replicated(open));

        Message wrong = cluster.request(liveGateway(), new ClientRemove(s.key(), s.hash(), Bytes.utf8("nope"), 0));
        assertThat(((RemoveReply) wrong).status()).isEqualTo(Status.FORBIDDEN);
        Message noSecretSet = cluster.request(liveGateway(),
                new ClientRemove(open.key(), open.hash(), Bytes.utf8("anything"), 0));
        assertThat(((RemoveReply) noSecretSet).status()).isEqualTo(Status.FORBIDDEN);
        assertThat(replicated(s)).isTrue();

        Message right = cluster.request(liveGateway(), new ClientRemove(s.key(), s.hash(), s.secret(), 0));
        assertThat(((RemoveReply) right).status()).isEqualTo(Status.OK);
        assertThat(copies(s)).as("copies right after the remove").isZero();
        for (int gw : readers(readsPerValue())) {
            assertThat(get(gw, s.key()).values()).isEmpty();
        }
        // Several anti-entropy rounds later it is still gone, and a re-put with the same secret is dropped.
        cluster.pass(Duration.ofMillis(5 * config().antiEntropyIntervalMillis()));
        assertThat(copies(s)).isZero();
        Message rePut = cluster.request(liveGateway(), new ClientPut(s.key(), s.value(), 3600,
                SecretBinding.of(s.secret(), s.key(), s.hash())));
        assertThat(((PutReply) rePut).status()).isEqualTo(Status.FORBIDDEN);
        cluster.pass(Duration.ofMillis(3 * config().antiEntropyIntervalMillis()));
        assertThat(copies(s)).isZero();
        assertThat(get(liveGateway(), s.key()).values()).isEmpty();
        assertThat(valuesOf(get(liveGateway(), open.key()))).containsExactly(open.value());

        // Re-putting someone else's value with your own secret makes a record of your own (protocol 16): a get gives
        // the bytes once, and a remove with that secret takes your copy only, never the value put without a secret.
        Stored thiefs = new Stored(open.key(), open.value(), Bytes.utf8("thief"));
        Message takeover = cluster.request(liveGateway(), new ClientPut(open.key(), open.value(), 7200,
                SecretBinding.of(thiefs.secret(), open.key(), open.hash())));
        assertThat(((PutReply) takeover).status()).isEqualTo(Status.OK);
        cluster.await("k copies of the thief's record", () -> replicated(thiefs));
        assertThat(valuesOf(get(liveGateway(), open.key()))).containsExactly(open.value());
        Message steal = cluster.request(liveGateway(), new ClientRemove(open.key(), open.hash(), thiefs.secret(), 0));
        assertThat(((RemoveReply) steal).status()).as("the thief's remove of its own copy").isEqualTo(Status.OK);
        assertThat(copies(thiefs)).isZero();
        assertThat(replicated(open)).as("the value put without a secret is on every replica still").isTrue();
        assertThat(valuesOf(get(liveGateway(), open.key()))).containsExactly(open.value());
    }

    @Test
    void aRemovedValueDoesNotComeBackFromAReplicaThatMissedTheRemove() {
        cluster = start(nodes(), config());
        Stored s = putRandom(liveGateway(), 3600, true);
        cluster.await("k copies", () -> replicated(s));
        int holder = -1;
        for (int i = 1; i < cluster.size() && holder < 0; i++) {
            if (cluster.read(i, s.key(), s.slot()).isPresent()) {
                holder = i;
            }
        }
        assertThat(holder).as("a replica other than node 0").isPositive();
        cluster.kill(holder);
        Message removed = requestRetryingLikeTheClient(new ClientRemove(s.key(), s.hash(), s.secret(), 0));
        assertThat(removed).as("remove right after a replica died").isInstanceOf(RemoveReply.class);
        assertThat(((RemoveReply) removed).status()).isEqualTo(Status.OK);
        cluster.restart(holder);
        int restarted = holder;
        cluster.await("the restarted replica learns the tombstone", () -> cluster.read(restarted, s.key(), s.slot())
                .map(StoredRecord::tombstone).orElse(true));
        // Before it learned the tombstone, the restarted replica may have pushed its live copy to a node that saw no
        // remove; anti-entropy turns that copy into a tombstone too, in a number of rounds that depends on which
        // neighbours each round picks. Then the value stays gone.
        cluster.await("no live copy anywhere", () -> copies(s) == 0);
        cluster.pass(Duration.ofMillis(5 * config().antiEntropyIntervalMillis()));
        assertThat(copies(s)).isZero();
        for (int r : readers(readsPerValue())) {
            assertThat(get(r, s.key()).values()).isEmpty();
        }
    }

    @Test
    void expiredValuesAreNeverReturnedAndArePurged() {
        cluster = start(nodes(), config());
        Stored shortLived = putRandom(liveGateway(), 2, false);
        Stored longLived = putRandom(liveGateway(), 3600, false);
        assertThat(valuesOf(get(liveGateway(), shortLived.key()))).containsExactly(shortLived.value());
        cluster.pass(Duration.ofMillis(2_500));
        for (int gw : readers(readsPerValue())) {
            assertThat(get(gw, shortLived.key()).values()).isEmpty();
        }
        cluster.await("expired records purged from every store", () -> {
            for (int i = 0; i < cluster.size(); i++) {
                if (cluster.isAlive(i) && cluster.read(i, shortLived.key(), shortLived.slot()).isPresent()) {
                    return false;
                }
            }
            return true;
        });
        assertThat(valuesOf(get(liveGateway(), longLived.key()))).containsExactly(longLived.value());
    }

    @Test
    void aRestartedNodeServesItsOwnDataAndRejoins() {
        cluster = start(nodes(), config());
        List<Stored> stored = putMany(Math.min(values(), 100));
        cluster.await("k copies", () -> allReplicated(stored));
        // The victim is a replica of the first value, so it has something of its own to serve.
        int victim = -1;
        for (int i = 1; i < cluster.size() && victim < 0; i++) {
            if (cluster.read(i, stored.get(0).key(), stored.get(0).slot()).isPresent()) {
                victim = i;
            }
        }
        assertThat(victim).isPositive();
        int v = victim;
        List<Stored> held = stored.stream().filter(s -> cluster.read(v, s.key(), s.slot()).isPresent())
                .collect(Collectors.toList());
        assertThat(held).isNotEmpty();
        cluster.kill(victim);
        cluster.restart(victim);
        // Its own store has every record at once, before any repair traffic could reach it.
        for (Stored s : held) {
            assertThat(cluster.read(victim, s.key(), s.slot())).isPresent();
        }
        cluster.await("the restarted node rejoins", () -> cluster.status(v).joined());
        for (Stored s : held) {
            assertThat(valuesOf(get(v, s.key()))).containsExactly(s.value());
        }
    }

    @Test
    void aQuorumGetReturnsAValueOneReplicaLostAndPutsItBackThere() {
        // Anti-entropy a week apart: no background round puts a lost copy back while the test runs.
        NodeConfig quiet = config().withPeriods(config().leafExchangeIntervalMillis(), Duration.ofDays(7).toMillis(),
                config().purgeIntervalMillis());
        cluster = start(Math.min(nodes(), 12), quiet);
        // Membership settled first, so that no leaf-set change starts a repair that would put the control back.
        awaitLeafSetsMatchTheRing(quiet.leafSetHalf());
        Stored s = putRandom(liveGateway(), 3600, false);
        Stored control = putRandom(liveGateway(), 3600, false);
        cluster.await("k copies", () -> replicated(s) && replicated(control));
        // The replicas' views settle: for a while after a change a replica reads three for a get (GetAnswers.settled).
        cluster.pass(Duration.ofMillis(quiet.settlingMillis()));
        // The second-closest replica loses its copy; the closest serves the quorum get and, by its own view, reads
        // itself and the two next closest (R = 3 of k = 4).
        int coordinator = replicasOf(s.key()).get(0);
        int lost = replicasOf(s.key()).get(1);
        int copiesBefore = copies(s);
        cluster.loseRecord(lost, s.key(), s.slot());
        int controlLost = replicasOf(control.key()).get(1);
        cluster.loseRecord(controlLost, control.key(), control.slot());
        assertThat(cluster.read(lost, s.key(), s.slot())).isEmpty();
        assertThat(copies(s)).isEqualTo(copiesBefore - 1);

        // A get of one replica, even through the node that lost its copy, is answered by another and repairs nothing.
        assertThat(valuesOf(get(controlLost, control.key()))).containsExactly(control.value());
        assertThat(cluster.read(controlLost, control.key(), control.slot())).as("a one-replica get repairs nothing")
                .isEmpty();
        Message reply = cluster.request(coordinator, new ClientGet(s.key(), 0, Bytes.EMPTY, false, GetOptions.of(RoutingMode.DEFAULT).withQuorum(0)));

        assertThat(reply).as("quorum get: %s", reply).isInstanceOf(GetReply.class);
        GetReply quorum = (GetReply) reply;
        assertThat(quorum.status()).isEqualTo(Status.OK);
        assertThat(quorum.replicasRead()).isEqualTo(K / 2 + 1);
        assertThat(valuesOf(quorum)).containsExactly(s.value());
        cluster.await("the replica that lost its copy holds it again",
                () -> cluster.read(lost, s.key(), s.slot()).isPresent());
        assertThat(copies(s)).isEqualTo(copiesBefore);

        Message tooMany = cluster.request(coordinator, new ClientGet(s.key(), 0, Bytes.EMPTY, false, GetOptions.of(RoutingMode.DEFAULT).withQuorum(K + 1)));
        assertThat(((ErrorReply) tooMany).status()).isEqualTo(Status.BAD_REQUEST);
    }

    @Test
    void badClientInputGetsPreciseErrors() {
        cluster = start(Math.min(nodes(), 4), config());
        Id key = Id.random(random);
        Message tooBig = cluster.request(0, new ClientPut(key, Bytes.wrap(new byte[config().valueBytesMax() + 1]),
                60, Bytes.EMPTY));
        assertThat(tooBig).isEqualTo(new ErrorReply(Status.TOO_LARGE, "value too large: "
                + (config().valueBytesMax() + 1) + " bytes, the limit is " + config().valueBytesMax()));
        Message badTtl = cluster.request(0, new ClientPut(key, Bytes.utf8("v"), 0, Bytes.EMPTY));
        assertThat(((ErrorReply) badTtl).status()).isEqualTo(Status.BAD_REQUEST);
        Message longTtl = cluster.request(0, new ClientPut(key, Bytes.utf8("v"), config().ttlSecondsMax() + 1,
                Bytes.EMPTY));
        assertThat(((ErrorReply) longTtl).status()).isEqualTo(Status.BAD_REQUEST);
        Message badHash = cluster.request(0, new ClientRemove(key, Bytes.utf8("short"), Bytes.utf8("s"), 0));
        assertThat(((ErrorReply) badHash).status()).isEqualTo(Status.BAD_REQUEST);
        // The node still serves good requests.
        Message ok = cluster.request(0, new ClientPut(key, Bytes.wrap("ok".getBytes(StandardCharsets.UTF_8)), 60,
                Bytes.EMPTY));
        assertThat(((PutReply) ok).status()).isEqualTo(Status.OK);
    }

    @Test
    void getsPageThroughManyValuesUnderOneKey() {
        cluster = start(Math.min(nodes(), 8), config());
        // Every node's view settled first: a replica whose leaf set still lacks a probed member may miss the newest
        // puts that the W acknowledging nodes hold, and the first page comes from any replica.
        awaitLeafSetsMatchTheRing(config().leafSetHalf());
        Id key = Id.random(random);
        List<Bytes> put = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            Bytes v = Bytes.utf8("value-" + i);
            put.add(v);
            assertThat(((PutReply) cluster.request(i % cluster.size(), new ClientPut(key, v, 600, Bytes.EMPTY)))
                    .status()).isEqualTo(Status.OK);
        }
        List<Bytes> got = new ArrayList<>();
        Bytes placemark = Bytes.EMPTY;
        int pages = 0;
        do {
            GetReply r = (GetReply) cluster.request(0, ClientGet.of(key).page(7, placemark));
            got.addAll(valuesOf(r));
            placemark = r.placemark();
            pages++;
        } while (!placemark.isEmpty() && pages < 20);
        assertThat(pages).isEqualTo(6);
        assertThat(got).containsExactlyInAnyOrderElementsOf(put);
    }
}
