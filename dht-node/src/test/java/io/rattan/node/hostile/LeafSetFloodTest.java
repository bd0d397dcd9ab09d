package io.rattan.node.hostile;

import static io.rattan.node.netty.Handshakes.expect;
import static io.rattan.node.netty.TestMessages.readFrame;
import static io.rattan.node.netty.TestMessages.writeFrame;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.rattan.api.Address;
import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.client.PutResult;
import io.rattan.client.RattanClient;
import io.rattan.core.codec.MessageCodec;
import io.rattan.core.id.NodeKey;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.MembershipMessages.ChallengeAnswer;
import io.rattan.core.msg.MembershipMessages.Hello;
import io.rattan.core.msg.MembershipMessages.JoinInfo;
import io.rattan.core.msg.MembershipMessages.LeafExchange;
import io.rattan.core.msg.MembershipMessages.Ping;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.MessageType;
import io.rattan.core.net.Contact;
import io.rattan.core.node.NodeConfig;
import io.rattan.core.store.StoredRecord;
import io.rattan.node.LocalCluster;
import io.rattan.node.RattanNode;
import io.rattan.node.netty.Handshakes;
import io.rattan.node.netty.TestMessages;
import io.rattan.node.transport.TestProofs;
import java.io.IOException;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The leaf-set flood of issue 18 on real sockets: one host, 127.0.0.9, claims 4,096 ids adjacent to a victim key.
 * Eight of them it proves to every node (a real handshake each: it listens where it claims to, and holds the keys
 * whose hashes they are) and keeps speaking from, so that they are first-hand contacts, verified, and nearer the key
 * than any honest node: only the per-IP bound keeps them out. Ids are hashes of keys, so the attacker draws keys until
 * eight ids fall near the key, which lies mid-way in the widest gap between honest nodes. All 4,096 it announces in
 * leaf-set exchanges and join contact lists, second hand: none of the
 * others answers a probe, so none may enter. Asserted: in every node's leaf set the host holds at most N places
 * (and does reach N, so the bound is what holds it), the honest members keep the rest, no id that was only announced
 * ever gets in, and a put and gets of the victim key reach honest replicas.
 */
class LeafSetFloodTest {

    private static final String ATTACKER_IP = "127.0.0.9";
    private static final int NODES = 8;
    private static final int FLOOD = 4096;
    private static final int PROVEN = 8;
    private static final Duration WAIT = Duration.ofSeconds(60);
    // k = 4 on a leaf set of 3 per side: the attacker's N = 2 ids near the key leave two honest replicas for W = 2.
    private static final NodeConfig CONFIG = NodeConfig.defaults().withLeafSetHalf(3);
    private static Id victim;

    @TempDir
    static Path dir;
    static HostileCluster nodes;
    static LocalCluster cluster;
    static RattanClient client;

    @BeforeAll
    static void startCluster() throws IOException {
        assertThat(CONFIG.idsPerIp()).isEqualTo(2);
        assertThat(CONFIG.replicas()).isEqualTo(4);
        nodes = HostileCluster.start(NODES, dir, CONFIG,
                b -> b.attemptTimeout(Duration.ofSeconds(8)).totalTimeout(Duration.ofSeconds(40)));
        cluster = nodes.cluster;
        client = nodes.client;
    }

    @AfterAll
    static void stop() {
        HostileCluster.close(nodes);
    }

    /** The {@code i}-th announced id: alternately clockwise and counter-clockwise of the victim key, 2^100 apart. */
    private static Id fake(int i) {
        long step = (long) (i / 2 + 1) << 36;
        return i % 2 == 0 ? victim.plus(new Id(0, step, 0)) : victim.minus(new Id(0, step, 0));
    }

    /** The middle of the widest gap between the honest nodes' ids: its nearest honest node is 1/16 of the ring away. */
    private static Id farFromHonestNodes() {
        List<Id> ids = cluster.nodes().stream().map(n -> n.contact().id()).sorted().toList();
        Id best = null;
        BigInteger widest = BigInteger.ZERO;
        for (int i = 0; i < ids.size(); i++) {
            Id from = ids.get(i);
            BigInteger gap = new BigInteger(1, ids.get((i + 1) % ids.size()).minus(from).toBytes());
            if (best == null || gap.compareTo(widest) > 0) {
                widest = gap;
                best = from;
            }
        }
        return best.plus(Id.fromHex(String.format("%040x", widest.shiftRight(1))));
    }

    /**
     * {@code count} keys whose ids lie within 1/64 of the ring of {@code key}: nearer than any honest node, as the
     * gap it sits in is at least 1/8 of the ring. About 32 draws a key.
     */
    private static List<NodeKey> keysNear(Id key, int count) {
        Id within = Id.fromHex("04" + "0".repeat(38));
        List<NodeKey> out = new ArrayList<>();
        for (int seed = 0; out.size() < count; seed++) {
            NodeKey k = TestMessages.key("flood-" + seed);
            if (k.id().distanceTo(key).compareTo(within) <= 0) {
                out.add(k);
            }
        }
        return out;
    }

    @Test
    void oneHostHoldsAtMostNPlacesInAnyLeafSetAndTheKeyStaysWithHonestReplicas() throws Exception {
        int n = CONFIG.idsPerIp();
        int full = Math.min(2 * CONFIG.leafSetHalf(), NODES - 1);
        await().atMost(WAIT).until(() -> cluster.nodes().stream().allMatch(node -> node.status().leafSet().size()
                == full));
        victim = farFromHonestNodes();
        byte[] before = "before the flood".getBytes(StandardCharsets.UTF_8);
        client.putSync(victim, before, Duration.ofMinutes(10));

        try (FakeHost attacker = new FakeHost(ATTACKER_IP)) {
            List<FakeHost.Fake> proven = new ArrayList<>();
            for (NodeKey k : keysNear(victim, PROVEN)) {
                proven.add(attacker.fake(k));
            }
            for (RattanNode node : cluster.nodes()) {
                for (FakeHost.Fake f : proven) {
                    f.prove(node);
                }
            }
            List<Contact> flood = new ArrayList<>();
            for (int i = 0; i < FLOOD; i++) {
                // Ports below the ephemeral range, where nothing of ours listens: no announced-only id can answer.
                flood.add(i < PROVEN ? proven.get(i).contact : new Contact(fake(i), new Address(ATTACKER_IP,
                        20_000 + i)));
            }
            Set<Id> provenIds = new HashSet<>();
            proven.forEach(f -> provenIds.add(f.contact.id()));

            int most = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(6);
            int round = 0;
            while (System.nanoTime() < deadline || most < n) {
                assertThat(round).as("rounds before the attacker reached its bound").isLessThan(200);
                // The proven ids keep speaking (so that no node finds them dead), and the flood is announced again.
                for (RattanNode node : cluster.nodes()) {
                    for (FakeHost.Fake f : proven) {
                        f.send(node, new Ping());
                    }
                    if (round % 5 == 0) {
                        proven.get(0).send(node, new LeafExchange(flood));
                        proven.get(1).send(node, new JoinInfo(flood, false));
                    }
                }
                Thread.sleep(200);
                for (RattanNode node : cluster.nodes()) {
                    List<Contact> leaves = node.status().leafSet();
                    List<Contact> theirs = leaves.stream().filter(c -> c.address().host().equals(ATTACKER_IP))
                            .toList();
                    assertThat(theirs).as("the attacker's places in the leaf set of %s: %s", node.contact(), leaves)
                            .hasSizeLessThanOrEqualTo(n);
                    assertThat(theirs).as("ids only announced, never proven").allMatch(c -> provenIds.contains(
                            c.id()));
                    assertThat(leaves.size() - theirs.size()).as("honest members of %s: %s", node.contact(), leaves)
                            .isGreaterThanOrEqualTo(full - n);
                    most = Math.max(most, theirs.size());
                }
                round++;
            }
            assertThat(most).as("the most places the attacker held in a leaf set").isEqualTo(n);
        }

        // The attacker fell silent: the key is served by honest replicas.
        byte[] after = "after the flood".getBytes(StandardCharsets.UTF_8);
        PutResult put = client.putSync(victim, after, Duration.ofMinutes(10));
        assertThat(honestCopies(victim, put.valueHash())).isGreaterThanOrEqualTo(CONFIG.writeQuorum());
        await().atMost(WAIT).ignoreExceptions().untilAsserted(() -> assertThat(client.getSync(victim).values())
                .extracting(v -> new String(v.bytes(), StandardCharsets.UTF_8))
                .containsExactlyInAnyOrder("before the flood", "after the flood"));
        assertThat(honestCopies(victim, Bytes.wrap(before).sha256())).isGreaterThanOrEqualTo(CONFIG.writeQuorum());
    }

    private static int honestCopies(Id key, Bytes valueHash) throws Exception {
        int copies = 0;
        for (RattanNode node : cluster.liveNodes()) {
            Optional<StoredRecord> r = node.readStore(key, valueHash).get();
            if (r.isPresent() && !r.get().tombstone()) {
                copies++;
            }
        }
        return copies;
    }

    /**
     * One host claiming many ids, as an attacker would from raw sockets. Each fake id listens on a port of its own
     * at the host's address (where a node's challenge of the claim arrives) and dials each node from that address;
     * it never welcomes a node's own connection, so nothing a node sends it is delivered, and it answers nothing.
     */
    static final class FakeHost implements AutoCloseable {

        private final List<AutoCloseable> sockets = new CopyOnWriteArrayList<>();
        private final AtomicLong requestIds = new AtomicLong(1);
        private final String ip;

        /** A host at {@code ip}, an address of this machine's loopback (127.0.0.x). */
        FakeHost(String ip) {
            this.ip = ip;
        }

        Fake fake(NodeKey key) throws IOException {
            return new Fake(key);
        }

        /** A fake id that proves itself to nodes: its listener hands each node's challenge to the proof awaiting it. */
        final class Fake {
            final Contact contact;
            private final NodeKey key;
            private final ServerSocket listener;
            private final Map<Id, BlockingQueue<Long>> challenges = new ConcurrentHashMap<>();
            private final Map<Id, Socket> toNode = new ConcurrentHashMap<>();

            Fake(NodeKey key) throws IOException {
                this.key = key;
                listener = new ServerSocket(0, 50, InetAddress.getByName(ip));
                sockets.add(listener);
                contact = new Contact(key.id(), new Address(ip, listener.getLocalPort()));
                Handshakes.acceptEach(listener, "fake-" + key.id().shortHex(), sockets, this::read);
            }

            private BlockingQueue<Long> challengesFrom(Id node) {
                return challenges.computeIfAbsent(node, k -> new LinkedBlockingQueue<>());
            }

            /** A node's connection to this fake: its hello names the node; its challenges go to that node's proof. */
            private void read(Socket s) {
                Id from = null;
                try {
                    while (true) {
                        Envelope e = readFrame(s);
                        if (e.body().type() == MessageType.HELLO) {
                            from = e.sender().id();
                        } else if (e.body().type() == MessageType.CHALLENGE && from != null) {
                            challengesFrom(from).add(e.requestId());
                        }
                    }
                } catch (IOException | RuntimeException end) {
                    // the node gave up on its handshake, or the host is closed
                }
            }

            /** Dials {@code node} from the attacker's address and proves this id's claim. */
            void prove(RattanNode node) throws IOException, InterruptedException {
                Socket s = new Socket();
                sockets.add(s);
                s.bind(new InetSocketAddress(ip, 0));
                s.connect(new InetSocketAddress("127.0.0.1", node.contact().address().port()), 20_000);
                s.setSoTimeout(20_000);
                writeFrame(s, new Envelope(contact, 0, new Hello(MessageCodec.VERSION)));
                Long nonce = challengesFrom(node.contact().id()).poll(20, TimeUnit.SECONDS);
                assertThat(nonce).as("%s's challenge of %s", node.contact(), contact).isNotNull();
                writeFrame(s, new Envelope(contact, nonce, new ChallengeAnswer(
                        TestProofs.prover(key).apply(nonce, node.contact()))));
                expect(s, MessageType.WELCOME);
                toNode.put(node.contact().id(), s);
            }

            /** Sends {@code m} to {@code node} on this id's proven connection. */
            void send(RattanNode node, Message m) throws IOException {
                writeFrame(toNode.get(node.contact().id()), new Envelope(contact, requestIds.getAndIncrement(), m));
            }
        }

        @Override
        public void close() {
            for (AutoCloseable c : sockets) {
                try {
                    c.close();
                } catch (Exception e) {
                    // closing a test socket: nothing to do
                }
            }
        }
    }
}
