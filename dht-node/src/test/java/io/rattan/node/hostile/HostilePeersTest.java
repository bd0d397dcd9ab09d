package io.rattan.node.hostile;

import static io.rattan.node.netty.Handshakes.expect;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.rattan.client.PutResult;
import io.rattan.client.RattanClient;
import io.rattan.core.codec.MessageCodec;
import io.rattan.core.id.Id;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.MessageType;
import io.rattan.core.msg.Messages.GetRequest;
import io.rattan.core.msg.Messages.Hello;
import io.rattan.core.msg.Messages.JoinRequest;
import io.rattan.core.msg.Messages.Leave;
import io.rattan.core.msg.Messages.Ping;
import io.rattan.core.msg.Messages.PutReply;
import io.rattan.core.msg.Messages.PutRequest;
import io.rattan.core.msg.Messages.RemoveRequest;
import io.rattan.core.msg.Messages.ReplicaRecord;
import io.rattan.core.msg.Messages.StoreAck;
import io.rattan.core.msg.Messages.StoreReplicas;
import io.rattan.core.msg.Status;
import io.rattan.core.net.Address;
import io.rattan.core.net.Contact;
import io.rattan.core.node.NodeConfig;
import io.rattan.core.store.StoredRecord;
import io.rattan.core.util.Bytes;
import io.rattan.node.LocalCluster;
import io.rattan.node.RattanNode;
import io.rattan.node.netty.Handshakes.RawPeer;
import io.rattan.node.transport.NettyTransport;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
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
    static LocalCluster cluster;
    static RattanClient client;
    static NodeConfig config = NodeConfig.defaults().withReplicas(3, 2).withLeafSetHalf(2);

    @BeforeAll
    static void startCluster() throws IOException {
        cluster = LocalCluster.start(NODES, dir, config);
        client = RattanClient.builder()
                .gateway(new Address("127.0.0.1", cluster.node(0).gatewayAddress().getPort()))
                .build();
    }

    @AfterAll
    static void stop() {
        if (client != null) {
            client.close();
        }
        if (cluster != null) {
            cluster.close();
        }
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
        try (RawPeer forger = new RawPeer(bystander).dialAndProve(port(neighbour), true);
             RawPeer thief = new RawPeer(victim.id()).dialAndProve(port(neighbour), true)) {
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
                    Bytes.EMPTY, attacker.contact, 11, 0)));
            Bytes big = Bytes.wrap(new byte[MessageCodec.VALUE_BYTES_MAX]);
            attacker.send(new Envelope(attacker.contact, 12, new PutRequest(key, big, 60, Bytes.EMPTY,
                    attacker.contact, 13, 0)));

            assertThat(((PutReply) awaitReply(attacker, MessageType.PUT_REPLY, 11).body()).status())
                    .isEqualTo(Status.BAD_REQUEST);
            assertThat(((PutReply) awaitReply(attacker, MessageType.PUT_REPLY, 13).body()).status())
                    .isEqualTo(Status.TOO_LARGE);
            assertThat(copies(key, value.sha256())).isZero();
            assertThat(copies(key, big.sha256())).isZero();
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

    @Test
    void requestsNamingAPlainSinkReachItWithHellosOnly() throws Exception {
        try (Sink sink = new Sink(); RawPeer attacker = prove("reflector", cluster.node(3))) {
            Contact victim = new Contact(Id.ofName("sink"), sink.address());
            for (int i = 0; i < 10; i++) {
                Id key = Id.ofName("reflect-" + i);
                attacker.send(new Envelope(attacker.contact, 100 + i, new GetRequest(key, 0, Bytes.EMPTY, victim,
                        1000 + i, 0)));
                attacker.send(new Envelope(attacker.contact, 200 + i, new PutRequest(key, Bytes.utf8("x"), 60,
                        Bytes.EMPTY, victim, 2000 + i, 0)));
                attacker.send(new Envelope(attacker.contact, 300 + i, new RemoveRequest(key,
                        Bytes.utf8("x").sha256(), Bytes.utf8("s"), 60, victim, 3000 + i, 0)));
                attacker.send(new Envelope(attacker.contact, 400 + i, new JoinRequest(victim, 4000 + i, 0)));
            }
            // The requests were routed: someone dialed the sink (with a hello, and nothing else).
            await().atMost(WAIT).until(() -> sink.connections.get() > 0);
            attacker.send(new Envelope(attacker.contact, 999, new Ping()));
            awaitAnswer(attacker, 999);
            Thread.sleep(1_000);

            int helloBytes = 4 + new MessageCodec().encode(new Envelope(cluster.node(0).contact(), 0,
                    new Hello(MessageCodec.VERSION))).length;
            assertThat(sink.bytes.get()).as("bytes at the sink, at most one hello per node")
                    .isLessThanOrEqualTo((long) NODES * helloBytes);
            assertThat(sink.frames).as("frames at the sink").allMatch(t -> t == MessageType.HELLO);
            assertThat(NettyTransport.HELLO_INTERVAL_NANOS).isEqualTo(Duration.ofSeconds(10).toNanos());
        }
    }

    // ---------------------------------------------------------------- helpers

    /**
     * A stranger at its own address, proven to {@code node}. It claims the id of a live node other than {@code node}
     * (an id bound elsewhere is never taken over), so that it never enters a table where honest traffic would be
     * routed to it and lost, which would disturb the other tests of this class.
     */
    private static RawPeer prove(String why, RattanNode node) throws IOException {
        RattanNode other = cluster.node(0) == node ? cluster.node(NODES - 1) : cluster.node(0);
        return new RawPeer(other.contact().id()).dialAndProve(port(node), true);
    }

    private static int port(RattanNode node) {
        return node.contact().address().port();
    }

    /** Reads the node's frames to {@code peer} until the answer to request {@code id} of {@code type}. */
    private static Envelope awaitReply(RawPeer peer, MessageType type, long id) throws IOException {
        while (true) {
            Envelope e = expect(peer.fromNode, type);
            if (e.requestId() == id) {
                return e;
            }
        }
    }

    private static void awaitAnswer(RawPeer peer, long pingId) throws IOException {
        awaitReply(peer, MessageType.PONG, pingId);
    }

    private static int copies(Id key, Bytes valueHash) throws Exception {
        return holders(key, valueHash).size();
    }

    private static List<RattanNode> holders(Id key, Bytes valueHash) throws Exception {
        List<RattanNode> holders = new ArrayList<>();
        for (RattanNode n : cluster.liveNodes()) {
            Optional<StoredRecord> r = n.readStore(key, valueHash).get();
            if (r.isPresent() && !r.get().tombstone()) {
                holders.add(n);
            }
        }
        return holders;
    }

    /** A plain TCP sink: accepts, reads and counts, never writes. */
    static final class Sink implements AutoCloseable {
        final ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        final AtomicInteger connections = new AtomicInteger();
        final AtomicLong bytes = new AtomicLong();
        final List<MessageType> frames = new CopyOnWriteArrayList<>();
        final List<Socket> accepted = new CopyOnWriteArrayList<>();
        final Thread acceptor;

        Sink() throws IOException {
            acceptor = new Thread(this::acceptAll, "sink");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        Address address() {
            return new Address("127.0.0.1", server.getLocalPort());
        }

        private void acceptAll() {
            try {
                while (true) {
                    Socket s = server.accept();
                    accepted.add(s);
                    connections.incrementAndGet();
                    Thread reader = new Thread(() -> read(s), "sink-reader");
                    reader.setDaemon(true);
                    reader.start();
                }
            } catch (IOException closed) {
                // the sink is closed
            }
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
}
