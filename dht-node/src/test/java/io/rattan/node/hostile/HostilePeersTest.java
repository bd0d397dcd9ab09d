package io.rattan.node.hostile;

import static io.rattan.node.netty.Handshakes.awaitReply;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.Counter;
import io.rattan.api.Address;
import io.rattan.api.Bytes;
import io.rattan.api.Cost;
import io.rattan.api.Id;
import io.rattan.api.OwnerStamp;
import io.rattan.api.RoutingMode;
import io.rattan.api.Status;
import io.rattan.client.PutResult;
import io.rattan.client.RattanClient;
import io.rattan.core.codec.MessageCodec;
import io.rattan.core.env.ExpiryClock;
import io.rattan.core.id.NodeKey;
import io.rattan.core.msg.ClientMessages.IterativeGet;
import io.rattan.core.msg.ClientMessages.IterativeGetReply;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.MembershipMessages.Challenge;
import io.rattan.core.msg.MembershipMessages.Hello;
import io.rattan.core.msg.MembershipMessages.JoinRequest;
import io.rattan.core.msg.MembershipMessages.Leave;
import io.rattan.core.msg.MembershipMessages.Ping;
import io.rattan.core.msg.MessageType;
import io.rattan.core.msg.NamespaceDefinition;
import io.rattan.core.msg.RepairMessages.Digest;
import io.rattan.core.msg.RepairMessages.DigestEntry;
import io.rattan.core.msg.RepairMessages.RangeDigest;
import io.rattan.core.msg.RepairMessages.RangeDigestReply;
import io.rattan.core.msg.RepairMessages.RangeSum;
import io.rattan.core.msg.ReplicaMessages.RemoveReplica;
import io.rattan.core.msg.ReplicaMessages.RemoveReplicaReply;
import io.rattan.core.msg.ReplicaMessages.ReplicaRead;
import io.rattan.core.msg.ReplicaMessages.ReplicaRecord;
import io.rattan.core.msg.ReplicaMessages.StoreAck;
import io.rattan.core.msg.ReplicaMessages.StoreReplicas;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import io.rattan.core.msg.RequestMessages.GetReply;
import io.rattan.core.msg.RequestMessages.GetRequest;
import io.rattan.core.msg.RequestMessages.PutReply;
import io.rattan.core.msg.RequestMessages.PutRequest;
import io.rattan.core.msg.RequestMessages.RemoveRequest;
import io.rattan.core.msg.RequestMessages.ValueEntry;
import io.rattan.core.msg.SecretBinding;
import io.rattan.core.net.Contact;
import io.rattan.core.node.NodeConfig;
import io.rattan.node.LocalCluster;
import io.rattan.node.RattanNode;
import io.rattan.node.identity.NodeKeyFile;
import io.rattan.node.netty.Handshakes.RawPeer;
import io.rattan.node.netty.Handshakes;
import io.rattan.node.netty.TestMessages;
import io.rattan.node.transport.NettyTransport;
import io.rattan.node.transport.TestProofs;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hostile peers on real sockets: a stranger that completes the handshake honestly (for its own address) and then
 * speaks the wire format from raw sockets, against a live cluster of real nodes. Each test asserts what the attack
 * must not achieve: no put acknowledged below W real copies, no neighbour removed, no copy stored by a stranger, no
 * limit passed, and no bytes but handshake hellos sent to an address that never completed a handshake.
 */
class HostilePeersTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final int NODES = 6;

    @TempDir
    static Path dir;
    static HostileCluster nodes;
    static LocalCluster cluster;
    static RattanClient client;
    // Pages of 16 values (16 KiB) rather than 256 (256 KiB): a key of 40 values spans pages, so that a reply the
    // paging did not cut would show, at the cost of 40 puts.
    static final int PAGE_VALUES = 16;
    static NodeConfig config = NodeConfig.defaults().withReplicas(3, 2).withLeafSetHalf(2)
            .withLimits(1024, NodeConfig.defaults().ttlSecondsMax(), PAGE_VALUES, PAGE_VALUES * 1024);

    @BeforeAll
    static void startCluster() throws IOException {
        nodes = HostileCluster.start(NODES, dir, config);
        cluster = nodes.cluster;
        client = nodes.client;
    }

    @AfterAll
    static void stop() {
        HostileCluster.close(nodes);
    }

    @Test
    void forgedRepliesWithGuessedIdsAcknowledgeNoPutBelowW() throws Exception {
        RattanNode gateway = cluster.node(0);
        AtomicBoolean flooding = new AtomicBoolean(true);
        AtomicLong forged = new AtomicLong();
        try (RawPeer attacker = prove("reply-forger", gateway)) {
            Thread flood = new Thread(() -> {
                SplittableRandom guesses = new SplittableRandom(7);
                try {
                    for (long id = 0; flooding.get(); id++) {
                        // Small counters and random guesses, answering as a put's root and as a replica.
                        long guess = (id & 1) == 0 ? id >> 1 : guesses.nextLong();
                        attacker.send(new Envelope(attacker.contact, guess, new PutReply(Status.OK, 3, "")));
                        attacker.send(new Envelope(attacker.contact, guess, new StoreAck(1)));
                        // About 10,000 forged replies a second: guesses, not a flood (rate limits are another test's).
                        if (forged.addAndGet(2) % 10 == 0) {
                            Thread.sleep(1);
                        }
                    }
                } catch (IOException | InterruptedException e) {
                    // the node closed the connection: the flood is over
                }
            }, "reply-forger");
            flood.start();
            List<PutResult> acked = new ArrayList<>();
            List<Id> keys = new ArrayList<>();
            try {
                // The puts begin once the flood is under way: 20 puts on a warm JVM can end before a thread that
                // is only starting has sent 100 (a fresh-clone run saw 90).
                await().atMost(Duration.ofSeconds(30)).until(() -> forged.get() > 100);
                for (int i = 0; i < 20; i++) {
                    Id key = Id.ofName("forged-replies-" + i);
                    keys.add(key);
                    acked.add(client.putSync(key, ("v" + i).getBytes(StandardCharsets.UTF_8),
                            Duration.ofMinutes(10)));
                }
            } finally {
                flooding.set(false);
                flood.join(10_000);
            }
            assertThat(forged.get()).as("forged replies sent").isGreaterThan(100);
            for (int i = 0; i < acked.size(); i++) {
                assertThat(copies(keys.get(i), acked.get(i).valueHash()))
                        .as("real copies of acknowledged put %d", i).isGreaterThanOrEqualTo(config.writeQuorum());
            }
        }
    }

    @Test
    void aLeaveForAVictimAndTheVictimsIdFromAnotherAddressRemoveNobody() throws Exception {
        RattanNode neighbour = cluster.node(2);
        Contact victim = neighbour.status().leafSet().get(0);
        Id bystander = cluster.nodes().stream().map(n -> n.contact().id())
                .filter(id -> !id.equals(victim.id()) && !id.equals(neighbour.contact().id())).findFirst()
                .orElseThrow();
        try (RawPeer forger = holding(bystander).dialAndProve(port(neighbour), true);
             RawPeer thief = holding(victim.id()).dialAndProve(port(neighbour), true)) {
            // A goodbye naming the victim on the forger's own proven connection: refused by the transport.
            forger.send(new Envelope(victim, 1, new Leave()));
            // The victim's id from the thief's own (proven) address: no takeover, and its goodbye is ignored.
            thief.send(new Envelope(thief.contact, 2, new Ping()));
            thief.send(new Envelope(thief.contact, 3, new Leave()));
            thief.send(new Envelope(thief.contact, 4, new Ping()));
            // The node handles one connection's frames in order: once the last ping is answered, all were handled.
            awaitAnswer(thief, 4);
            forger.send(new Envelope(forger.contact, 5, new Ping()));
            awaitAnswer(forger, 5);

            // The victim answers the probe its stolen id drew, and stays where it was.
            Thread.sleep(500);
            for (RattanNode n : cluster.nodes()) {
                List<Contact> leaves = n.status().leafSet();
                assertThat(leaves).as("leaf set of %s", n.contact()).noneMatch(c ->
                        c.address().equals(thief.contact.address()));
            }
            assertThat(neighbour.status().leafSet()).contains(victim);
        }
    }

    @Test
    void aPeerPutOutsideTheLimitsIsRefusedAndNothingIsStored() throws Exception {
        RattanNode node = cluster.node(1);
        try (RawPeer attacker = prove("huge-ttl", node)) {
            Id key = Id.ofName("huge-ttl");
            Bytes value = Bytes.utf8("forever");
            attacker.send(new Envelope(attacker.contact, 10, new PutRequest(key, value, Integer.MAX_VALUE,
                    inAMinute(), Bytes.EMPTY, attacker.contact, 11, 0)));
            Bytes big = Bytes.wrap(new byte[MessageCodec.VALUE_BYTES_MAX]);
            attacker.send(new Envelope(attacker.contact, 12, new PutRequest(key, big, 60, inAMinute(), Bytes.EMPTY,
                    attacker.contact, 13, 0)));
            Bytes stale = Bytes.utf8("expired");
            attacker.send(new Envelope(attacker.contact, 14, new PutRequest(key, stale, 60,
                    System.currentTimeMillis() - 10_000, Bytes.EMPTY, attacker.contact, 15, 0)));

            assertThat(((PutReply) awaitReply(attacker, MessageType.PUT_REPLY, 11).body()).status())
                    .isEqualTo(Status.BAD_REQUEST);
            assertThat(((PutReply) awaitReply(attacker, MessageType.PUT_REPLY, 13).body()).status())
                    .isEqualTo(Status.TOO_LARGE);
            PutReply expired = (PutReply) awaitReply(attacker, MessageType.PUT_REPLY, 15).body();
            assertThat(expired.status()).isEqualTo(Status.BAD_REQUEST);
            assertThat(expired.detail()).contains("expired before it reached this node");
            assertThat(copies(key, value.sha256())).isZero();
            assertThat(copies(key, big.sha256())).isZero();
            assertThat(copies(key, stale.sha256())).isZero();
        }
    }

    @Test
    void copiesAndTombstonesFromAStrangerAreNotStored() throws Exception {
        Id key = Id.ofName("stranger-copies");
        byte[] honest = "honest".getBytes(StandardCharsets.UTF_8);
        PutResult put = client.putSync(key, honest, Duration.ofMinutes(10));
        await().atMost(WAIT).until(() -> copies(key, put.valueHash()) == config.replicas());
        RattanNode replica = holders(key, put.valueHash()).get(0);
        try (RawPeer stranger = prove("stranger", replica)) {
            Bytes planted = Bytes.utf8("planted");
            long week = System.currentTimeMillis() + Duration.ofDays(7).toMillis();
            stranger.send(new Envelope(stranger.contact, 20, new StoreReplicas(List.of(
                    new ReplicaRecord(key, planted.sha256(), planted, week, Bytes.EMPTY, Bytes.EMPTY, false),
                    // A tombstone for the honest value, with what a node on its put path saw (its hash) as secret.
                    // (A replica's forgeries, from the binding it holds: ForgedRemoveTest.)
                    new ReplicaRecord(key, put.valueHash(), Bytes.EMPTY, week, Bytes.EMPTY, put.valueHash(),
                            true)))));
            assertThat(((StoreAck) awaitReply(stranger, MessageType.STORE_ACK, 20).body()).accepted()).isZero();
        }
        assertThat(copies(key, Bytes.utf8("planted").sha256())).isZero();
        assertThat(client.getSync(key).values()).extracting(v -> new String(v.bytes(), StandardCharsets.UTF_8))
                .containsExactly("honest");
        assertThat(copies(key, put.valueHash())).isEqualTo(config.replicas());
    }

    /**
     * A replica asked to remove by a node it does not see as a replica of the key answers UNAVAILABLE (views differ, for
     * now) and removes nothing. It answered FORBIDDEN, which the root passes on when no other replica removed: the
     * putter's own remove then came back 403, "wrong secret" (found by the fault simulator's rule 2b under faults).
     */
    @Test
    void aRemoveFromANodeThatIsNoReplicaIsRefusedAsUnavailableNotForbidden() throws Exception {
        Id key = Id.ofName("stranger-remove");
        byte[] secret = "the putter's".getBytes(StandardCharsets.UTF_8);
        PutResult put = client.putSync(key, "kept".getBytes(StandardCharsets.UTF_8), Duration.ofMinutes(10), secret);
        Bytes slot = SecretBinding.slotFor(Bytes.of(secret), key, put.valueHash());
        await().atMost(WAIT).until(() -> copies(key, slot) >= 1);
        RattanNode replica = holders(key, slot).get(0);
        try (RawPeer stranger = prove("remover", replica)) {
            stranger.send(new Envelope(stranger.contact, 40, new RemoveReplica(key, put.valueHash(),
                    SecretBinding.proof(Bytes.of(secret), key, put.valueHash()), 600)));
            assertThat(((RemoveReplicaReply) awaitReply(stranger, MessageType.REMOVE_REPLICA_REPLY, 40).body())
                    .status()).isEqualTo(Status.UNAVAILABLE);
        }
        assertThat(replica.readStore(key, slot).get().orElseThrow().tombstone()).isFalse();
    }

    @Test
    void aStrangerCannotReadAReplicasRecordsOfAKey() throws Exception {
        Id key = Id.ofName("stranger-read");
        PutResult put = client.putSync(key, "secret-bound".getBytes(StandardCharsets.UTF_8), Duration.ofMinutes(10));
        // Any one holder will do: what is asserted is the stranger's refusal. (Waiting for exactly k copies timed out
        // once in seven runs under load, cause not found; the copy count is other tests' claim.)
        await().atMost(WAIT).until(() -> copies(key, put.valueHash()) >= 1);
        RattanNode replica = holders(key, put.valueHash()).get(0);
        try (RawPeer stranger = prove("reader", replica)) {
            // A quorum get's read hands out records with their secret hashes and tombstones: replicas only.
            stranger.send(new Envelope(stranger.contact, 30, new ReplicaRead(key, Bytes.EMPTY, 0)));
            assertThat(((ErrorReply) awaitReply(stranger, MessageType.ERROR_REPLY, 30).body()).status())
                    .isEqualTo(Status.FORBIDDEN);
        }
    }

    /**
     * Repair requests from a stranger: a range digest of the whole ring made a node read every record it holds (a few
     * thousand filled its store's queue), and a digest that names a removed value as live was answered with the
     * tombstone, the remove's secret included. Now the range digest is answered with the empty sums a stranger always
     * got, without reading, and the tombstone is withheld; each is counted.
     */
    @Test
    void aStrangersRepairRequestsReadNothingAndTellItNoTombstone() throws Exception {
        Id key = Id.ofName("stranger-digest");
        byte[] secret = "the remove's secret".getBytes(StandardCharsets.UTF_8);
        PutResult put = client.putSync(key, "removed".getBytes(StandardCharsets.UTF_8), Duration.ofMinutes(10),
                secret);
        assertThat(client.removeSync(key, put.valueHash(), secret, Duration.ofMinutes(10))).isTrue();
        Bytes slot = SecretBinding.slotFor(Bytes.of(secret), key, put.valueHash());
        await().atMost(WAIT).until(() -> !nodes.tombstones(key, slot).isEmpty());
        RattanNode replica = nodes.tombstones(key, slot).get(0);
        Counter readNothing = replica.meterRegistry().get("rattan.repair.requests.refused").tag("reason", "not_member")
                .counter();
        Counter withheld = replica.meterRegistry().get("rattan.repair.tombstones.withheld").counter();
        double readNothingBefore = readNothing.count();
        double withheldBefore = withheld.count();
        try (RawPeer stranger = prove("digest", replica)) {
            stranger.send(new Envelope(stranger.contact, 40, new RangeDigest(Id.ZERO, Id.ZERO, false,
                    Collections.nCopies(16, new RangeSum(0, 0)))));
            RangeDigestReply sums = (RangeDigestReply) awaitReply(stranger, MessageType.RANGE_DIGEST_REPLY, 40).body();
            assertThat(sums.parts()).containsOnly(new RangeSum(0, 0));
            // At least: an honest node whose view still differs may be counted too on this shared cluster.
            assertThat(readNothing.count() - readNothingBefore).isGreaterThanOrEqualTo(1);

            stranger.send(new Envelope(stranger.contact, 41, new Digest(List.of(
                    new DigestEntry(key, slot, false)))));
            awaitReply(stranger, MessageType.DIGEST_WANT, 41);
            await().atMost(WAIT).until(() -> withheld.count() - withheldBefore >= 1);
        }
    }

    @Test
    void requestsNamingAPlainSinkReachItWithHellosOnly() throws Exception {
        RattanNode node = cluster.node(3);
        try (Sink sink = new Sink("127.0.0.1"); RawPeer attacker = prove("reflector", node);
             Socket stranger = new Socket("127.0.0.1", port(node))) {
            Contact victim = new Contact(Id.ofName("sink"), sink.address());
            long refusedBefore = node.peerFramesRefused();
            // A stranger that never did the handshake names the sink in every request that names an address: the
            // node keeps each from its core (refused as unverified) and answers nothing, to anyone.
            for (Envelope e : requestsNaming(victim, Id.ofName("reflect-unverified"), 700)) {
                TestMessages.writeFrame(stranger, e);
            }
            // On a proven connection, an iterative get whose sender is the sink: a forged sender, refused.
            for (int i = 0; i < 10; i++) {
                attacker.send(new Envelope(victim, 500 + i, new IterativeGet(Id.ofName("reflect-" + i), 0,
                        Bytes.EMPTY, true)));
            }
            await().atMost(WAIT).until(() -> node.peerFramesRefused() - refusedBefore >= 15);
            assertThat(stranger.getInputStream().available()).as("bytes sent back to the stranger").isZero();
            for (int i = 0; i < 10; i++) {
                Id key = Id.ofName("reflect-" + i);
                attacker.send(new Envelope(attacker.contact, 100 + i, new GetRequest(key, 0, Bytes.EMPTY, victim,
                        1000 + i, 0)));
                attacker.send(new Envelope(attacker.contact, 200 + i, new PutRequest(key, Bytes.utf8("x"), 60,
                        inAMinute(), Bytes.EMPTY, victim, 2000 + i, 0)));
                attacker.send(new Envelope(attacker.contact, 300 + i, new RemoveRequest(key,
                        Bytes.utf8("x").sha256(), Bytes.utf8("s"), 60, victim, 3000 + i, 0)));
                attacker.send(new Envelope(attacker.contact, 400 + i, new JoinRequest(victim, 4000 + i, 0, null)));
            }
            // The requests were routed: someone dialed the sink (with a hello, and nothing else).
            await().atMost(WAIT).until(() -> sink.connections() > 0);
            attacker.send(new Envelope(attacker.contact, 999, new Ping()));
            awaitAnswer(attacker, 999);
            Thread.sleep(1_000);

            int helloBytes = 4 + new MessageCodec().encode(new Envelope(cluster.node(0).contact(), 0,
                    new Hello(MessageCodec.VERSION))).length;
            assertThat(sink.bytes.get()).as("bytes at the sink, at most one hello per node")
                    .isLessThanOrEqualTo((long) NODES * helloBytes);
            assertThat(sink.frames).as("frames at the sink").allMatch(t -> t == MessageType.HELLO);
            assertThat(NettyTransport.HELLO_INTERVAL_NANOS).isEqualTo(Duration.ofSeconds(10).toNanos());
            assertThat(stranger.getInputStream().available()).as("bytes sent back to the stranger").isZero();
        }
    }

    /**
     * A hello is the one request a stranger can make before any handshake, and it names an address: the node dials
     * it to challenge the claim. The claim must be the stranger's own IP (here 127.0.0.2, where the sink listens too),
     * and however many hellos claim the sink's address within the hello interval, the sink gets one hello and one
     * challenge.
     */
    @Test
    void helloesClaimingAPlainSinkDrawOneHelloAndOneChallengeWhateverTheirNumber() throws Exception {
        RattanNode node = cluster.node(2);
        int claims = 50;
        List<Socket> claimants = new ArrayList<>();
        try (Sink sink = new Sink("127.0.0.2")) {
            double droppedBefore = droppedUnverified(node);
            for (int i = 0; i < claims; i++) {
                Socket s = new Socket();
                claimants.add(s);
                s.bind(new InetSocketAddress("127.0.0.2", 0));
                s.connect(new InetSocketAddress("127.0.0.1", port(node)), 20_000);
                TestMessages.writeFrame(s, new Envelope(new Contact(Id.ofName("claimant-" + i), sink.address()), 0,
                        new Hello(MessageCodec.VERSION)));
            }
            // Every claim after the first finds the sink's connection still unwelcomed, and challenges nothing.
            await().atMost(WAIT).until(() -> droppedUnverified(node) - droppedBefore >= claims - 1);
            await().atMost(WAIT).until(() -> sink.frames.size() >= 2);

            MessageCodec codec = new MessageCodec();
            int helloBytes = 4 + codec.encode(new Envelope(node.contact(), 0, new Hello(MessageCodec.VERSION))).length;
            int challengeBytes = 4 + codec.encode(new Envelope(node.contact(), 0, new Challenge())).length;
            assertThat(sink.connections()).as("connections to the sink").isEqualTo(1);
            assertThat(sink.frames).as("frames at the sink").containsExactly(MessageType.HELLO, MessageType.CHALLENGE);
            assertThat(sink.bytes.get()).as("bytes at the sink").isEqualTo(helloBytes + challengeBytes);
        } finally {
            for (Socket s : claimants) {
                s.close();
            }
        }
    }

    /**
     * A proven peer names an honest node as the origin of each request that names one (or, for an iterative get, asks
     * itself): every reply, to the origin and to the asker, is at most the request plus one page, though the key holds
     * 40 values and the page 16.
     */
    @Test
    void repliesToAnHonestOriginAndToTheAskerAreAtMostTheRequestPlusOnePage() throws Exception {
        Id key = Id.ofName("paged-reflection");
        List<PutResult> puts = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            byte[] value = new byte[1000];
            java.util.Arrays.fill(value, (byte) i);
            puts.add(client.putSync(key, value, Duration.ofMinutes(10)));
        }
        await().atMost(WAIT).until(() -> {
            for (PutResult p : puts) {
                if (copies(key, p.valueHash()) != config.replicas()) {
                    return false;
                }
            }
            return true;
        });
        // A replica of the key is asked, so that the iterative get is answered with values, not candidates: the
        // holder of every value closest to the key. (Any holder would not do: a holder need not be a replica in its own
        // view, e.g. one that took a copy while a closer node was suspected. In CI one answered with candidates.)
        RattanNode replica = closestHolderOfAll(key, puts);
        try (Origin origin = new Origin(Id.ofName("honest-origin")); RawPeer asker = prove("asker", replica)) {
            List<Envelope> requests = requestsNaming(origin.contact, key, 800);
            requests = requests.stream().map(e -> new Envelope(asker.contact, e.requestId(), e.body()))
                    .collect(java.util.stream.Collectors.toList());
            int requestBytesMax = 0;
            for (Envelope e : requests) {
                requestBytesMax = Math.max(requestBytesMax, 4 + new MessageCodec().encode(e).length);
                asker.send(e);
            }
            await().atMost(WAIT).until(() -> origin.received(MessageType.GET_REPLY)
                    && origin.received(MessageType.PUT_REPLY) && origin.received(MessageType.REMOVE_REPLY)
                    && origin.received(MessageType.JOIN_INFO));
            Envelope iterative = awaitReply(asker, MessageType.ITERATIVE_GET_REPLY, 804);

            int page = pageBytes(config);
            long bound = (long) requestBytesMax + page;
            assertThat(origin.frames).as("frames the origin was sent").isNotEmpty()
                    .allSatisfy(f -> assertThat((long) f.bytes()).as("a %s", f.type()).isLessThanOrEqualTo(bound));
            assertThat(4L + new MessageCodec().encode(iterative).length).isLessThanOrEqualTo(bound);
            // The pages were full: the paging, not the key's size, bounded them.
            IterativeGetReply answer = (IterativeGetReply) iterative.body();
            assertThat(answer.values()).as("the values of an answer with status %s, holders %s", answer.status(),
                    answer.contacts()).hasSize(PAGE_VALUES);
            assertThat(origin.first(MessageType.GET_REPLY).values()).hasSize(PAGE_VALUES);
        }
    }

    // ---------------------------------------------------------------- helpers

    /**
     * Every peer request that names an address, naming {@code named}: as the origin of a get, a put and a remove, as
     * a joiner, and as the sender of an iterative get. Request ids from {@code firstId}; the iterative get's is
     * {@code firstId + 4}.
     */
    private static List<Envelope> requestsNaming(Contact named, Id key, long firstId) {
        Bytes value = Bytes.utf8("reflected");
        return List.of(
                new Envelope(named, firstId, new GetRequest(key, RoutingMode.DEFAULT, 0, Bytes.EMPTY, named,
                        firstId * 10, 0, true, Cost.ZERO)),
                new Envelope(named, firstId + 1, new PutRequest(key, value, 60, inAMinute(), Bytes.EMPTY,
                        named, firstId * 10 + 1, 0)),
                new Envelope(named, firstId + 2, new RemoveRequest(key, value.sha256(), Bytes.utf8("wrong"), 60, named,
                        firstId * 10 + 2, 0)),
                new Envelope(named, firstId + 3, new JoinRequest(named, firstId * 10 + 3, 0, null)),
                new Envelope(named, firstId + 4, new IterativeGet(key, 0, Bytes.EMPTY, true)));
    }

    /**
     * One page on the wire, as the code pages a get ({@code LocalReplica.readPage}): at most {@code pageValuesMax}
     * values holding at most {@code pageBytesMax} value bytes together, with the last one's placemark (a value hash)
     * and, when asked, the key's k holders; the frame of the larger of the two replies that carry a page (a routed
     * get's and an iterative get's), from a sender with the longest IPv4 address. Every field but the values has a
     * fixed width, so values of equal size make the largest page; owned ones, with their stamps, the largest.
     */
    static int pageBytes(NodeConfig c) {
        List<ValueEntry> values = new ArrayList<>();
        OwnerStamp stamp = new OwnerStamp(Bytes.wrap(new byte[32]), 0, 0, 0, Bytes.wrap(new byte[64]));
        for (int i = 0; i < c.pageValuesMax(); i++) {
            values.add(new ValueEntry(Bytes.wrap(new byte[c.pageBytesMax() / c.pageValuesMax()]), Long.MAX_VALUE,
                    stamp));
        }
        Bytes placemark = Bytes.wrap(new byte[32]);
        Contact longest = new Contact(Id.ofName("holder"), new Address("255.255.255.255", 65_535), 65_535);
        List<Contact> holders = java.util.Collections.nCopies(c.replicas(), longest);
        MessageCodec codec = new MessageCodec();
        int get = codec.encodedSize(new Envelope(longest, Long.MAX_VALUE, new GetReply(Status.OK, values, placemark,
                0, "", Cost.ZERO, holders)));
        int iterative = codec.encodedSize(new Envelope(longest, Long.MAX_VALUE, new IterativeGetReply(Status.OK, true,
                values, placemark, holders)));
        return 4 + Math.max(get, iterative);
    }

    private static double droppedUnverified(RattanNode node) {
        Counter dropped = node.meterRegistry().find("rattan.transport.frames.dropped").tag("reason", "unverified")
                .counter();
        return dropped == null ? 0 : dropped.count();
    }

    /**
     * A stranger at its own address, proven to {@code node}. It claims the id of a live node other than {@code node}
     * (an id bound elsewhere is never taken over), so that it never enters a table where honest traffic would be
     * routed to it and lost, which would disturb the other tests of this class. Since every version a node speaks
     * proves ids, it holds that node's key: a test can read it from the node's data directory, an attacker cannot.
     */
    private static RawPeer prove(String why, RattanNode node) throws IOException {
        RattanNode other = cluster.node(0) == node ? cluster.node(NODES - 1) : cluster.node(0);
        return holding(other.contact().id()).dialAndProve(port(node), true);
    }

    /** A raw peer at 127.0.0.1 that proves {@code id}, with the key of the cluster's node that has it. */
    private static RawPeer holding(Id id) throws IOException {
        return new RawPeer(id, TestProofs.prover(keyOf(id)));
    }

    /** The key of the cluster's node whose id is {@code id}. */
    private static NodeKey keyOf(Id id) throws IOException {
        RattanNode owner = cluster.nodes().stream().filter(n -> n.contact().id().equals(id)).findFirst()
                .orElseThrow();
        return NodeKeyFile.read(owner.dataDir().resolve(NodeKeyFile.FILE_NAME)).orElseThrow();
    }

    private static int port(RattanNode node) {
        return node.contact().address().port();
    }

    private static void awaitAnswer(RawPeer peer, long pingId) throws IOException {
        awaitReply(peer, MessageType.PONG, pingId);
    }

    /** Live copies in {@code slot} (a value's hash; for one put with a secret, the slot its binding names). */
    private static int copies(Id key, Bytes slot) throws Exception {
        return holders(key, slot).size();
    }

    /** Of the nodes that hold every value put, the one whose id is closest to {@code key}. */
    private static RattanNode closestHolderOfAll(Id key, List<PutResult> puts) throws Exception {
        List<RattanNode> all = new ArrayList<>(cluster.liveNodes());
        for (PutResult p : puts) {
            all.retainAll(holders(key, p.valueHash()));
        }
        assertThat(all).as("nodes holding all %d values", puts.size()).isNotEmpty();
        all.sort((a, b) -> a.contact().id().isCloserTo(key, b.contact().id()) ? -1 : 1);
        return all.get(0);
    }

    private static List<RattanNode> holders(Id key, Bytes slot) throws Exception {
        return nodes.holders(key, slot);
    }

    /** A plain TCP sink: accepts, reads and counts, never writes. */
    static final class Sink implements AutoCloseable {
        final ServerSocket server;
        final AtomicLong bytes = new AtomicLong();
        final List<MessageType> frames = new CopyOnWriteArrayList<>();
        final List<Socket> accepted = new CopyOnWriteArrayList<>();

        /** A sink listening on {@code host}, an IP literal of this machine (127.0.0.x). */
        Sink(String host) throws IOException {
            server = new ServerSocket(0, 50, InetAddress.getByName(host));
            Handshakes.acceptEach(server, "sink", accepted, this::read);
        }

        /** Connections the sink accepted. */
        int connections() {
            return accepted.size();
        }

        Address address() {
            return new Address(server.getInetAddress().getHostAddress(), server.getLocalPort());
        }

        private void read(Socket s) {
            try (InputStream in = s.getInputStream()) {
                java.io.DataInputStream data = new java.io.DataInputStream(in);
                while (true) {
                    int length = data.readInt();
                    byte[] body = new byte[length];
                    data.readFully(body);
                    bytes.addAndGet(4 + length);
                    frames.add(new MessageCodec().decode(body).body().type());
                }
            } catch (IOException | RuntimeException end) {
                // the node closed its connection, or the sink was closed
            }
        }

        @Override
        public void close() throws IOException {
            server.close();
            for (Socket s : accepted) {
                s.close();
            }
        }
    }
    /** A frame an {@link Origin} was sent: its type and its size on the wire, length prefix included. */
    record Frame(MessageType type, int bytes, Envelope envelope) {
    }

    /**
     * An honest peer that other nodes may name as an origin: it welcomes every node that dials it, once the node has
     * proven its own address as a node would make it ({@link Handshakes#welcome}), and records every frame it is then
     * sent. It sends no envelope itself, so no node learns it as a neighbour.
     */
    static final class Origin implements AutoCloseable {
        final ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        final Contact contact;
        final List<Frame> frames = new CopyOnWriteArrayList<>();
        final List<Socket> sockets = new CopyOnWriteArrayList<>();

        Origin(Id id) throws IOException {
            contact = new Contact(id, new Address("127.0.0.1", server.getLocalPort()));
            Handshakes.acceptEach(server, "origin", sockets, this::welcomeAndRead);
        }

        boolean received(MessageType type) {
            return frames.stream().anyMatch(f -> f.type() == type);
        }

        GetReply first(MessageType type) {
            return (GetReply) frames.stream().filter(f -> f.type() == type).findFirst().orElseThrow().envelope().body();
        }

        private void welcomeAndRead(Socket s) {
            try {
                sockets.add(Handshakes.welcome(s, contact));
                s.setSoTimeout(0);
                java.io.DataInputStream in = new java.io.DataInputStream(s.getInputStream());
                while (true) {
                    int length = in.readInt();
                    byte[] body = new byte[length];
                    in.readFully(body);
                    Envelope e = new MessageCodec().decode(body);
                    frames.add(new Frame(e.body().type(), 4 + length, e));
                }
            } catch (IOException | RuntimeException end) {
                // the node closed its connection, or the origin was closed
            }
        }

        @Override
        public void close() throws IOException {
            server.close();
            for (Socket s : sockets) {
                s.close();
            }
        }
    }

    /**
     * A gateway sets a put's expiry (its clock + the TTL); a gateway whose clock runs ahead, or lies, cannot stretch
     * the value past its TTL + 2 S by the clock of the node that stores it.
     */
    @Test
    void aPeerPutWhoseExpiryLiesFarAheadIsStoredWithinItsTtl() throws Exception {
        RattanNode node = cluster.node(1);
        try (RawPeer attacker = prove("far-ahead", node)) {
            Id key = Id.ofName("far-ahead");
            Bytes value = Bytes.utf8("ten years");
            long sent = System.currentTimeMillis();
            // Signed by the origin it names, so that the root takes it and only the expiry is in question.
            attacker.send(new Envelope(attacker.contact, 20, new PutRequest(key, value, 60,
                    sent + 3650L * 86_400_000L, Bytes.EMPTY, attacker.contact, 21, 0)
                    .signedBy(keyOf(attacker.contact.id()), NamespaceDefinition.DEFAULT)));

            // The root answers the origin named, which a raw peer does not serve: the copies tell instead.
            await().atMost(WAIT).until(() -> copies(key, value.sha256()) >= 2);
            long received = System.currentTimeMillis();
            for (RattanNode h : holders(key, value.sha256())) {
                long expiresAt = h.readStore(key, value.sha256()).get(10, TimeUnit.SECONDS).orElseThrow()
                        .expiresAtMillis();
                assertThat(expiresAt).as("expiry at %s", h.contact()).isBetween(sent + 60_000,
                        received + 60_000 + ExpiryClock.SPREAD_BOUND_MILLIS);
            }
        }
    }

    /** A put's expiry a minute from now by this machine's clock, which the nodes' expiry clocks follow. */
    private static long inAMinute() {
        return System.currentTimeMillis() + 60_000;
    }
}
