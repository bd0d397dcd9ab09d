package io.rattan.sim.faults;

import io.rattan.api.Address;
import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.core.msg.ClientMessages.ClientPut;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.MembershipMessages.HopAck;
import io.rattan.core.msg.MembershipMessages.Ping;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.RepairMessages.Digest;
import io.rattan.core.msg.RepairMessages.DigestEntry;
import io.rattan.core.msg.RepairMessages.RangeDigest;
import io.rattan.core.msg.RepairMessages.RangeSum;
import io.rattan.core.msg.ReplicaMessages.PutAck;
import io.rattan.core.msg.ReplicaMessages.RemoveAck;
import io.rattan.core.msg.ReplicaMessages.RemoveReplica;
import io.rattan.core.msg.ReplicaMessages.RemoveReplicaReply;
import io.rattan.core.msg.ReplicaMessages.ReplicaRead;
import io.rattan.core.msg.ReplicaMessages.ReplicaReadReply;
import io.rattan.core.msg.ReplicaMessages.ReplicaRecord;
import io.rattan.core.msg.ReplicaMessages.StoreAck;
import io.rattan.core.msg.ReplicaMessages.StoreReplicas;
import io.rattan.core.msg.RequestMessages.GetReply;
import io.rattan.core.msg.RequestMessages.GetRequest;
import io.rattan.core.msg.RequestMessages.PutReply;
import io.rattan.core.msg.RequestMessages.PutRequest;
import io.rattan.core.msg.RequestMessages.RemoveReply;
import io.rattan.core.msg.RequestMessages.RemoveRequest;
import io.rattan.core.msg.RequestMessages.Routed;
import io.rattan.core.msg.RequestMessages.ValueEntry;
import io.rattan.core.msg.SecretBinding;
import io.rattan.core.msg.WatchMessages.Watch;
import io.rattan.core.msg.WatchMessages.WatchAck;
import io.rattan.core.msg.WatchMessages.WatchChange;
import io.rattan.core.net.Contact;
import io.rattan.core.virtual.VirtualNetwork;
import io.rattan.core.virtual.VirtualWorld;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * The liars of a fault run ({@link Liars}): nodes that run the real node code but answer, in its place, the requests
 * their attacks target ({@link Attack}). Everything else they do honestly: they join, route, keep leaf sets and
 * serve as gateways to their own clients. A dead liar lies no more (the network delivers nothing to it), nor does one
 * that has not (re)joined (an honest node stays silent then); namespaced messages pass untouched. Lies are counted by
 * attack; what they achieved is what the checker's rules count.
 */
final class LiarNodes implements VirtualNetwork.Interception {

    /** How long a forged value claims to live: well within the run, so that the checker sees it as live. */
    private static final long FORGED_TTL_MILLIS = 600_000;
    /** How often a harvesting liar asks every node for the tombstones of the values its gets saw. */
    private static final long HARVEST_EVERY_NANOS = 30_000_000_000L;
    /** How often a flooding liar sends each live node {@link #FLOOD_DIGESTS} range digests: 200 a second each. */
    private static final long FLOOD_EVERY_NANOS = 100_000_000L;
    private static final int FLOOD_DIGESTS = 20;
    /** As many parts as a node's own range digests name. */
    private static final int FLOOD_PARTS = 16;
    /** Most values a harvesting liar remembers: one digest's worth. */
    private static final int SEEN_MAX = 4096;

    private final VirtualWorld world;
    private final Liars liars;
    private final List<Integer> indexes;
    private final SplittableRandom random;
    private final EnumMap<Attack, Long> lies = new EnumMap<>(Attack.class);
    private long failures;
    private final OriginForgery forgery;
    private final ClockLies clock;
    private final PeerFlood peerFlood;
    private final SlotCapture slots;
    private Checker checker;
    /** The keys a harvesting liar watches: the workload's, whose names are no secret. */
    private List<Id> keys = List.of();
    /** The values each harvesting liar has learnt of (by slot), by liar, in the order seen. */
    private final Map<Integer, Set<DigestEntry>> seen = new HashMap<>();
    /** The secrets reported: a liar, and the key and value whose putter's secret reached it. */
    private final Set<Leak> leaks = new HashSet<>();

    private record Leak(int liar, Id key, Bytes valueHash) {
    }

    /**
     * The first {@code liars.count(n)} of {@code drawOrder} ({@link Liars#drawOrder}: the world's {@code n} nodes)
     * lie; {@code random}, which drew that order, also forges values.
     */
    LiarNodes(VirtualWorld world, Liars liars, List<Integer> drawOrder, SplittableRandom random) {
        this.world = world;
        this.liars = liars;
        this.random = random;
        this.indexes = List.copyOf(drawOrder.subList(0, liars.count(drawOrder.size())));
        for (Attack a : liars.attacks()) {
            lies.put(a, 0L);
        }
        for (int liar : indexes) {
            seen.put(liar, new LinkedHashSet<>());
        }
        if (liars.attacks().contains(Attack.SECRET_HARVEST)) {
            world.scheduler().schedule(HARVEST_EVERY_NANOS, this::harvest);
        }
        if (liars.attacks().contains(Attack.REPAIR_FLOOD)) {
            world.scheduler().schedule(FLOOD_EVERY_NANOS, this::flood);
        }
        forgery = liars.attacks().contains(Attack.ORIGIN_FORGERY) ? new OriginForgery(world, indexes, random,
                (liar, to, body) -> {
                    told(Attack.ORIGIN_FORGERY);
                    send(liar, to, 0, body);
                }) : null;
        clock = liars.attacks().contains(Attack.CLOCK_LIE)
                ? new ClockLies(world, indexes, (liar, to, body) -> send(liar, to, 0, body)) : null;
        slots = liars.attacks().contains(Attack.SLOT_CAPTURE) ? new SlotCapture(world, indexes,
                SlotCapture.onOneHost(liars, drawOrder), (liar, to, body) -> {
                    told(Attack.SLOT_CAPTURE);
                    send(liar, to, 0, body);
                }) : null;
        peerFlood = liars.attacks().contains(Attack.PEER_FLOOD) ? new PeerFlood(world, indexes, random,
                (liar, to, body) -> {
                    told(Attack.PEER_FLOOD);
                    send(liar, to, 0, body);
                }) : null;
    }

    /** The checker the liars report the secrets they harvest to (rule 2c), and the keys they watch to learn values. */
    void checker(Checker checker, List<Id> keys) {
        this.checker = checker;
        this.keys = List.copyOf(keys);
        if (forgery != null) {
            forgery.checker(checker);
        }
        if (clock != null) {
            clock.checker(checker);
        }
        if (peerFlood != null) {
            peerFlood.checker(checker);
        }
        if (slots != null) {
            slots.checker(checker);
        }
        // Liars that fake acks take no copy, tombstones included, and those that fake removes write no tombstone.
        checker.liars(indexes, lies(Attack.FAKE_ACK) || lies(Attack.FAKE_REMOVE));
        if (lies(Attack.FAKE_ACK)) {
            // With fake-empty too, a liar's empty answer may be that attack's lie: rule 1 must count it.
            checker.storeNothing(indexes, !lies(Attack.FAKE_EMPTY));
        }
    }

    /** Exceptions the liars' nodes threw when a liar raced a put as their client. */
    long failures() {
        return failures;
    }

    /**
     * The liars of a run, the lies they told, by attack (every attack of the run present), and the violations where
     * an attacker's node replicated the key or served the get; none for null.
     */
    static FaultRunResult.Lies told(LiarNodes liars, Map<Rule, Long> withinLimits) {
        return liars == null ? FaultRunResult.Lies.NONE
                : new FaultRunResult.Lies(liars.indexes, liars.lies, withinLimits);
    }

    @Override
    public boolean consumes(Address to, Envelope e) {
        int liar = liarAt(to);
        if (liar < 0 || e.sender() == null || !world.node(liar).isJoined()) {
            return false;
        }
        Message m = e.body();
        if (lies(Attack.SECRET_HARVEST) && harvestConsumes(liar, e, m)) {
            return true;
        }
        if (peerFlood != null && peerFlood.consumes(liar, e)) {
            return true;
        }
        if (m instanceof Ping && clock != null) {
            send(liar, e.sender().address(), e.requestId(), clock.pong());
            return told(Attack.CLOCK_LIE);
        }
        if (m instanceof PutRequest p) {
            boolean canRace = lies(Attack.BINDING_RACE) && !p.binding().isEmpty() && p.stamp() == null
                    && !p.origin().equals(world.contact(liar));
            if (canRace && (!lies(Attack.FAKE_ACK) || random.nextBoolean())) {
                race(liar, p);
                return false;
            }
            if (lies(Attack.FAKE_ACK)) {
                answer(liar, e, p, new PutReply(Status.OK, world.config().writeQuorum(), ""));
                if (p.stamp() == null) {
                    fakeAck(liar, p.origin(), p.originRequestId(),
                            new PutAck(p.key(), p.value().sha256(), p.expiresAtMillis(), p.binding()), true);
                }
                return told(Attack.FAKE_ACK);
            }
        }
        if (m instanceof StoreReplicas s && lies(Attack.FAKE_ACK)) {
            send(liar, e.sender().address(), e.requestId(), new StoreAck(s.records().size()));
            if (s.ackTo() != null && s.records().size() == 1) {
                fakeAck(liar, s.ackTo(), s.ackRequestId(), PutAck.of(s.records().get(0)), false);
            }
            return told(Attack.FAKE_ACK);
        }
        if (m instanceof RemoveRequest r && lies(Attack.FAKE_REMOVE)) {
            answer(liar, e, r, new RemoveReply(Status.OK, ""));
            fakeRemoveAck(liar, r.origin(), r.originRequestId(), r.key(), r.valueHash(), true);
            return told(Attack.FAKE_REMOVE);
        }
        if (m instanceof RemoveReplica r && lies(Attack.FAKE_REMOVE)) {
            send(liar, e.sender().address(), e.requestId(), new RemoveReplicaReply(Status.OK));
            if (r.ackTo() != null) {
                fakeRemoveAck(liar, r.ackTo(), r.ackRequestId(), r.key(), r.valueHash(), false);
            }
            return told(Attack.FAKE_REMOVE);
        }
        if (m instanceof GetRequest g && (lies(Attack.FAKE_EMPTY) || lies(Attack.FORGED_VALUE))) {
            boolean forge = lies(Attack.FORGED_VALUE) && (!lies(Attack.FAKE_EMPTY) || random.nextBoolean());
            List<ValueEntry> values = forge ? List.of(new ValueEntry(forgedBytes(), FORGED_TTL_MILLIS)) : List.of();
            answer(liar, e, g, new GetReply(Status.OK, values, Bytes.EMPTY, g.hops() + 1, "", g.cost(), List.of(),
                    Math.max(1, g.readQuorum())));
            return told(forge ? Attack.FORGED_VALUE : Attack.FAKE_EMPTY);
        }
        return false;
    }

    /**
     * What a harvesting liar learns from a frame its node is sent: the values' slots, and what removes routed through
     * it, copies and replica reads bring. True for the answers to its own watches and reads, which its node never
     * asked for.
     */
    private boolean harvestConsumes(int liar, Envelope e, Message m) {
        sawBindings(liar, m);
        if (m instanceof WatchAck || m instanceof WatchChange) {
            return true;
        }
        if (m instanceof RemoveRequest r) {
            harvested(liar, r.key(), r.valueHash(), r.secret());
        }
        if (m instanceof RemoveReplica r) {
            harvested(liar, r.key(), r.valueHash(), r.secret());
        }
        if (m instanceof StoreReplicas s) {
            harvested(liar, s.records());
        }
        if (m instanceof ReplicaReadReply r) {
            harvested(liar, r.records());
            // Its own reads (harvest) are request 0; a quorum read its node serves is its node's.
            return e.requestId() == 0;
        }
        return false;
    }

    /**
     * Puts {@code p}'s bytes under its key with a binding of the liar's own, as a client of the liar's node, at once:
     * started before the node routes {@code p} on, it usually reaches the root first (each message draws its own
     * delay). A node's failure here is counted where the workload counts its gateways' (it must not end the run).
     */
    private void race(int liar, PutRequest p) {
        told(Attack.BINDING_RACE);
        if (checker != null) {
            checker.liarRaced(p.key(), p.value().sha256());
        }
        try {
            world.node(liar).handleClient(new ClientPut(p.key(), p.value(), p.ttlSeconds(), forgedBytes()), r -> { });
        } catch (RuntimeException ex) {
            failures++;
        }
    }

    /**
     * Every {@link #HARVEST_EVERY_NANOS}, each live liar watches the workload's keys at every live node (as any node
     * may: a watch's records carry their bindings, which name their slots; {@link #sawBindings}) and asks every live
     * node for the tombstones of the values it has learnt of: a repair digest that claims them live, which a holder of
     * a tombstone answers by streaming it back, secret and all, if it gives tombstones to this asker at all; and reads
     * every key's records at every live node as a quorum get's coordinator would, which a holder that takes the liar
     * for a replica answers with its tombstones (before, any leaf-set member: {@code GetAnswers}). (Before
     * protocol 16 it learnt the values by getting the keys: a tombstone was named by the hash of the bytes a get shows;
     * since, by the slot its binding names, which a get does not show.)
     */
    private void harvest() {
        for (int liar : indexes) {
            if (!world.isAlive(liar)) {
                continue;
            }
            for (Id key : keys) {
                for (int i : world.liveIndexes()) {
                    if (i != liar) {
                        send(liar, world.contact(i).address(), 0, new Watch(key, 1,
                                (int) (2 * HARVEST_EVERY_NANOS / 1_000_000), true, Bytes.EMPTY));
                        send(liar, world.contact(i).address(), 0, new ReplicaRead(key, Bytes.EMPTY, 0));
                    }
                }
            }
            Set<DigestEntry> asked = seen.get(liar);
            if (asked.isEmpty()) {
                continue;
            }
            Digest ask = new Digest(List.copyOf(asked));
            for (int i : world.liveIndexes()) {
                if (i != liar) {
                    send(liar, world.contact(i).address(), 0, ask);
                    told(Attack.SECRET_HARVEST);
                }
            }
        }
        world.scheduler().schedule(HARVEST_EVERY_NANOS, this::harvest);
    }

    /**
     * Every {@link #FLOOD_EVERY_NANOS}, each live, joined liar sends every other live node range digests that name the
     * whole ring (from the receiver's id round to it): each asks for a scan of all the receiver holds.
     */
    private void flood() {
        List<RangeSum> parts = Collections.nCopies(FLOOD_PARTS, new RangeSum(0, 0));
        for (int liar : indexes) {
            if (!world.isAlive(liar) || !world.node(liar).isJoined()) {
                continue;
            }
            for (int i : world.liveIndexes()) {
                if (i == liar) {
                    continue;
                }
                Id round = world.contact(i).id();
                for (int n = 0; n < FLOOD_DIGESTS; n++) {
                    send(liar, world.contact(i).address(), 0, new RangeDigest(round, round, false, parts));
                    told(Attack.REPAIR_FLOOD);
                }
            }
        }
        world.scheduler().schedule(FLOOD_EVERY_NANOS, this::flood);
    }

    /**
     * Remembers the slots of the values put with a secret that the liar learns of (a put it routes, a copy it is sent,
     * its watches' records): their bindings, which every node on their path and every watcher sees, name them
     * (protocol 16), where a get shows only the bytes.
     */
    private void sawBindings(int liar, Message m) {
        Set<DigestEntry> known = seen.get(liar);
        if (m instanceof PutRequest p && !p.binding().isEmpty() && p.stamp() == null && known.size() < SEEN_MAX) {
            known.add(new DigestEntry(p.key(), SecretBinding.slot(p.value().sha256(), p.binding()), false));
        }
        List<ReplicaRecord> records = m instanceof StoreReplicas s ? s.records()
                : m instanceof WatchAck a ? a.records() : m instanceof WatchChange c ? c.records() : List.of();
        for (ReplicaRecord r : records) {
            if (!r.binding().isEmpty() && r.stamp() == null && known.size() < SEEN_MAX) {
                known.add(new DigestEntry(r.key(), r.slot(), false));
            }
        }
    }

    private void harvested(int liar, List<ReplicaRecord> records) {
        for (ReplicaRecord r : records) {
            if (r.tombstone()) {
                harvested(liar, r.key(), r.valueHash(), r.secret());
            }
        }
    }

    /**
     * Reports a putter's secret that reached a liar (rule 2c), once per liar and value (a stream resends what the
     * liar's node refuses to store). Its client holds it; what a remove sends is the value's proof.
     */
    private void harvested(int liar, Id key, Bytes valueHash, Bytes sent) {
        for (PutRecord p : checker.puts(key)) {
            if (p.hash.equals(valueHash) && p.secret.equals(sent) && leaks.add(new Leak(liar, key, valueHash))) {
                checker.liarAchieved(Rule.SECRET_TO_LIAR, "the secret of a put of " + key.shortHex()
                        + " reached node " + liar);
            }
        }
    }

    private boolean told(Attack a) {
        lies.merge(a, 1L, Long::sum);
        return true;
    }

    private boolean lies(Attack a) {
        return liars.attacks().contains(a);
    }

    /** The index of the liar listening at {@code to}, or -1: the liars are few, and a restart may move one. */
    private int liarAt(Address to) {
        for (int i : indexes) {
            if (world.contact(i).address().equals(to)) {
                return i;
            }
        }
        return -1;
    }

    /** Acknowledges the hop (so that the node before does not route around the liar) and answers the gateway. */
    private void answer(int liar, Envelope e, Routed request, Message reply) {
        send(liar, e.sender().address(), e.requestId(), new HopAck());
        send(liar, request.origin().address(), request.originRequestId(), reply);
    }

    /**
     * Tells a put's gateway, in the liar's own name, that it holds a copy it never stored; the checker learns which
     * liars did, since W acks of which L are lies leave W − L copies (the bound of docs/security.md).
     */
    private void fakeAck(int liar, Contact gateway, long requestId, PutAck ack, boolean dropped) {
        send(liar, gateway.address(), requestId, ack);
        if (checker != null) {
            checker.liarAcked(ack.key(), ack.valueHash(), liar, dropped);
        }
    }

    /**
     * Tells a remove's gateway, in the liar's own name, that it holds a tombstone it never wrote; the checker learns
     * it. {@code dropped}: the liar was routed the remove itself and passed it on to no one.
     */
    private void fakeRemoveAck(int liar, Contact gateway, long requestId, Id key, Bytes valueHash, boolean dropped) {
        send(liar, gateway.address(), requestId, new RemoveAck(key, valueHash));
        if (checker != null) {
            checker.liarAckedRemove(key, valueHash, liar, dropped);
        }
    }

    private void send(int liar, Address to, long requestId, Message body) {
        Contact self = world.contact(liar);
        world.network().transportFor(self.address()).send(to, new Envelope(self, requestId, body));
    }

    private Bytes forgedBytes() {
        byte[] b = new byte[32];
        random.nextBytes(b);
        return Bytes.of(b);
    }
}
