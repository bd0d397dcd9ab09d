package io.rattan.sim.faults;

import io.rattan.api.Address;
import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.ReplicaMessages.PutAck;
import io.rattan.core.msg.RequestMessages.PutReply;
import io.rattan.core.msg.RequestMessages.PutRequest;
import io.rattan.core.node.Node;
import io.rattan.core.node.OriginLimits;
import io.rattan.core.virtual.VirtualWorld;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * The liars' puts on the peer port in their own names ({@link Attack#PEER_FLOOD}, docs/security.md, item 2): every
 * {@link #EVERY_NANOS} each live, joined liar sends one honest node, drawn anew each round, {@link #PER_ROUND} puts of
 * {@link #VALUE_BYTES} made-up bytes under that node's own id (so that it is the key's root), straight from their
 * origin, the liar, as a node may. The run's roots meter origins at {@link #LIMITS}: half a round's puts a second, and
 * a share of half a round's bytes. A root acknowledges its own copy to the put's origin, the liar, which so learns
 * what each root took; one that holds more of a liar's live puts than the share was flooded past its meter (rule 2e),
 * counted once for each put over. A root is judged per boot (it meters in memory, so a restarted one starts afresh)
 * and not once its own clock has had a fault (it frees a share by its own clock).
 */
final class PeerFlood {

    static final long EVERY_NANOS = 1_000_000_000L;
    static final int PER_ROUND = 32;
    static final int VALUE_BYTES = 1024;
    /** What a run with this attack meters each origin at: far above what any honest gateway of the workload puts. */
    static final OriginLimits LIMITS = new OriginLimits(true, PER_ROUND / 2, PER_ROUND / 2 * VALUE_BYTES);
    private static final int TTL_SECONDS = 30;

    /** A flooded put: the root it went to (its index, its address, and its node: a restart makes another) and more. */
    private record Flooded(int root, Address rootAt, Node rootNode, int bytes, long expiresAtMillis) {
    }

    /** What one boot of a root has acknowledged of one liar's live puts: their expiries and sizes. */
    private static final class Held {
        final List<long[]> live = new ArrayList<>();
        long bytes;

        /** The bytes held once a put expiring at {@code expiresAtMillis} is added (acks may come out of order). */
        long add(long expiresAtMillis, int size, long nowMillis) {
            live.removeIf(p -> {
                boolean gone = p[0] <= nowMillis;
                bytes -= gone ? p[1] : 0;
                return gone;
            });
            live.add(new long[] {expiresAtMillis, size});
            bytes += size;
            return bytes;
        }
    }

    /** One liar's puts at one boot of a root (a node compares by identity). */
    private record Account(int liar, int root, Node boot) {
    }

    private final VirtualWorld world;
    private final List<Integer> liars;
    private final Set<Integer> liarSet;
    private final SplittableRandom random;
    private final LiarSender sender;
    /** The puts sent and not yet expired, by request id: their answers are the flood's, never its node's. */
    private final Map<Long, Flooded> sent = new HashMap<>();
    private final Deque<Long> sentOrder = new ArrayDeque<>();
    /** Those whose root's ack has counted: a put the network duplicated is stored and acknowledged twice. */
    private final Set<Long> counted = new HashSet<>();
    private final Map<Account, Held> held = new HashMap<>();
    private Checker checker;

    PeerFlood(VirtualWorld world, List<Integer> liars, SplittableRandom random, LiarSender sender) {
        this.world = world;
        this.liars = liars;
        this.liarSet = new HashSet<>(liars);
        this.random = random;
        this.sender = sender;
        world.scheduler().schedule(EVERY_NANOS, this::round);
    }

    void checker(Checker checker) {
        this.checker = checker;
    }

    /**
     * Takes an answer to a flooded put (a node's reply, a replica's ack): true when it is one, which the liar's node
     * never asked for. A root's ack of its own copy counts against its share of {@code liar}'s puts.
     */
    boolean consumes(int liar, Envelope e) {
        if (!(e.body() instanceof PutAck) && !(e.body() instanceof PutReply)) {
            return false;
        }
        Flooded f = sent.get(e.requestId());
        if (f == null) {
            return false;
        }
        long now = world.scheduler().epochMillis();
        if (e.body() instanceof PutAck && e.sender().address().equals(f.rootAt()) && checker != null
                && f.expiresAtMillis() > now && !checker.clockFaulted(f.root()) && counted.add(e.requestId())) {
            long bytes = held.computeIfAbsent(new Account(liar, f.root(), f.rootNode()), a -> new Held())
                    .add(f.expiresAtMillis(), f.bytes(), now);
            if (bytes > LIMITS.storageBytes()) {
                checker.liarAchieved(Rule.ORIGIN_OVER_SHARE, "node " + f.root() + " holds " + bytes
                        + " bytes of node " + liar + "'s puts, over its share of " + LIMITS.storageBytes());
            }
        }
        return true;
    }

    private void round() {
        forget(world.scheduler().epochMillis());
        // A restarted root meters afresh: its earlier boots' accounts are done with.
        held.keySet().removeIf(a -> world.node(a.root()) != a.boot());
        List<Integer> honest = Introductions.of(world, liarSet).others();
        for (int liar : liars) {
            if (!world.isAlive(liar) || !world.node(liar).isJoined() || honest.isEmpty()) {
                continue;
            }
            int root = honest.get(random.nextInt(honest.size()));
            for (int n = 0; n < PER_ROUND; n++) {
                flood(liar, root);
            }
        }
        world.scheduler().schedule(EVERY_NANOS, this::round);
    }

    private void flood(int liar, int root) {
        byte[] bytes = new byte[VALUE_BYTES];
        random.nextBytes(bytes);
        Id key = world.contact(root).id();
        long requestId = random.nextLong();
        long expiresAt = world.scheduler().epochMillis() + TTL_SECONDS * 1000L;
        PutRequest put = new PutRequest(key, Bytes.of(bytes), TTL_SECONDS, expiresAt, Bytes.EMPTY,
                world.contact(liar), requestId, 0);
        Address to = world.contact(root).address();
        sent.put(requestId, new Flooded(root, to, world.node(root), VALUE_BYTES, expiresAt));
        sentOrder.addLast(requestId);
        sender.send(liar, to, put);
    }

    /** Forgets the puts that have expired: their late answers go to the liar's node, which drops them. */
    private void forget(long nowMillis) {
        while (!sentOrder.isEmpty()) {
            Flooded f = sent.get(sentOrder.peekFirst());
            if (f != null && f.expiresAtMillis() > nowMillis) {
                return;
            }
            long id = sentOrder.pollFirst();
            sent.remove(id);
            counted.remove(id);
        }
    }
}
