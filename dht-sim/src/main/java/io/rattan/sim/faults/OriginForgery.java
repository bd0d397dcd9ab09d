package io.rattan.sim.faults;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.core.msg.NamespaceDefinition;
import io.rattan.core.msg.RequestMessages.PutRequest;
import io.rattan.core.net.Contact;
import io.rattan.core.virtual.VirtualWorld;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * The liars' puts in other nodes' names ({@link Attack#ORIGIN_FORGERY}): every {@link #EVERY_NANOS}, each live liar
 * sends {@link #PER_ROUND} honest nodes a put of made-up bytes under the node's own id (so that the node is the
 * key's root), naming another honest node as the put's origin, unsigned or signed with the liar's own key. A root
 * that stores one has let a node spend another's share (rule 2d), checked two rounds later at every live honest node.
 */
final class OriginForgery {

    static final long EVERY_NANOS = 5_000_000_000L;
    static final int PER_ROUND = 4;
    private static final long TTL_MILLIS = 600_000;

    private record Forged(Id key, Bytes valueHash, long sentNanos) {
    }

    private final VirtualWorld world;
    private final List<Integer> liars;
    private final Set<Integer> liarSet;
    private final SplittableRandom random;
    private final LiarSender sender;
    private final Deque<Forged> unchecked = new ArrayDeque<>();
    private Checker checker;

    OriginForgery(VirtualWorld world, List<Integer> liars, SplittableRandom random, LiarSender sender) {
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

    private void round() {
        check(world.scheduler().nanoTime() - 2 * EVERY_NANOS);
        List<Integer> honest = Introductions.of(world, liarSet).others();
        for (int liar : liars) {
            if (!world.isAlive(liar) || !world.node(liar).isJoined() || honest.size() < 2) {
                continue;
            }
            for (int n = 0; n < PER_ROUND; n++) {
                forge(liar, honest);
            }
        }
        world.scheduler().schedule(EVERY_NANOS, this::round);
    }

    private void forge(int liar, List<Integer> honest) {
        int root = honest.get(random.nextInt(honest.size()));
        int named = honest.get(random.nextInt(honest.size()));
        if (named == root) {
            return;
        }
        Contact origin = world.contact(named);
        byte[] bytes = new byte[32];
        random.nextBytes(bytes);
        Id key = world.contact(root).id();
        PutRequest put = new PutRequest(key, Bytes.of(bytes), (int) (TTL_MILLIS / 1000),
                world.scheduler().epochMillis() + TTL_MILLIS, Bytes.EMPTY, origin, 1 + random.nextInt(1 << 30), 0);
        if (random.nextBoolean()) {
            put = put.signedBy(world.key(liar), NamespaceDefinition.DEFAULT);
        }
        unchecked.add(new Forged(key, put.value().sha256(), world.scheduler().nanoTime()));
        sender.send(liar, world.contact(root).address(), put);
    }

    /** Reports each forged put sent by {@code sentBefore} that a live honest node holds. */
    private void check(long sentBefore) {
        while (!unchecked.isEmpty() && unchecked.peekFirst().sentNanos() <= sentBefore) {
            Forged f = unchecked.pollFirst();
            for (int i : world.liveIndexes()) {
                if (!liarSet.contains(i) && world.store(i).read(f.key(), f.valueHash()).isPresent()) {
                    if (checker != null) {
                        checker.liarAchieved(Rule.FORGED_ORIGIN_STORED, "a put of " + f.key().shortHex()
                                + " in another node's name, held by " + world.contact(i).id().shortHex());
                    }
                    break;
                }
            }
        }
    }
}
