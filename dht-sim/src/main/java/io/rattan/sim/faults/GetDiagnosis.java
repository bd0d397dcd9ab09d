package io.rattan.sim.faults;

import io.rattan.api.Address;
import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.ReplicaMessages.ReplicaRead;
import io.rattan.core.msg.ReplicaMessages.ReplicaReadReply;
import io.rattan.core.msg.ReplicaMessages.ReplicaRecord;
import io.rattan.core.msg.ReplicaMessages.StoreReplicas;
import io.rattan.core.msg.RequestMessages.GetReply;
import io.rattan.core.msg.RequestMessages.GetRequest;
import io.rattan.core.msg.RequestMessages.ValueEntry;
import io.rattan.core.net.Contact;
import io.rattan.core.node.ReplicaView;
import io.rattan.core.store.Store;
import io.rattan.core.store.StoredRecord;
import io.rattan.core.virtual.VirtualWorld;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Why an acknowledged put was missing from a get (rule 1): which node answered the get, what it held of the key when
 * it answered, what its own view said (replica, root, how long since it started and since its leaf set changed), where
 * the copies were, and which faults happened around the get. The world's network tells it every message sent: a
 * {@link GetReply} sent to a get's origin is remembered (by identity: the virtual network delivers the object sent)
 * with a snapshot of its sender, so that the checker, handed that reply, knows who answered. A get its gateway
 * answered itself sent no reply over the network: its gateway is the answerer. It also notes when a copy of each value
 * was first sent to each node, for the checker to tell a copy in flight from a lost one. Read-only: it draws nothing and sends
 * nothing, so a run's trace is the same with it. Single-threaded, on the world's thread.
 */
final class GetDiagnosis {

    private static final long SECOND = 1_000_000_000L;
    /** A view this recent is "new": a start or leaf-set change within it, as a join's repair has not ended yet. */
    static final long RECENT_NANOS = 10 * SECOND;

    /** What a node held of a key and thought of it when it answered a get. */
    record Served(int node, long atNanos, ReplicaView view, Set<Bytes> values, boolean heldAny) {
    }

    /** An entry of {@code keyOfRequest} (reply null) or of {@code served} (request key unused), and when it was made. */
    private record Recorded(long atNanos, long requestKey, Message reply) {
    }

    /**
     * How long a get's key (from its first hop) and a reply's snapshot are kept: far longer than a client waits for its
     * answer (twice the request timeout and 2 s), so a get still routed when its key is forgotten has no client left.
     */
    static final long KEPT_NANOS = 120 * SECOND;

    /** A crash, restart, partition or heal, with its time. */
    record Event(long atNanos, String kind, int node) {
    }

    private final VirtualWorld world;
    private final Map<Address, Integer> indexOf = new HashMap<>();
    // (origin port, origin request id) -> the get's key; every hop of a routed get names its origin.
    private final Map<Long, Id> keyOfRequest = new HashMap<>();
    private final IdentityHashMap<Message, Served> served = new IdentityHashMap<>();
    // What was recorded above, oldest first, so that what no client can still ask about is forgotten: replies of
    // raced gets that lost, of gets whose client timed out, of the final read's pages (KEPT_NANOS).
    private final ArrayDeque<Recorded> recorded = new ArrayDeque<>();
    private final List<Event> events = new ArrayList<>();
    private final Map<String, Integer> causes = new TreeMap<>();
    // Value hash -> when a copy of it was first sent to each node (0: never).
    private final Map<Bytes, long[]> copiesSent = new HashMap<>();

    /**
     * A get's answer on its way to its gateway ({@code get}), or a replica's records on their way to a node serving a
     * quorum get: its sender, its receiver, the value hashes it carried live, and the slots its sender held live then
     * for those hashes (for a replica read, the slots it sent). Rule 2 tells by them which copy of the same bytes a
     * get returned: its putter's, or one under another binding.
     */
    record Answer(long atNanos, int from, int to, Id key, boolean get, Map<Bytes, Set<Bytes>> liveSlots) {
    }

    /** See {@link #servedFromSlot}. */
    record Sources(Set<Integer> inSlot, boolean elsewhere) {
        /** Whether {@code p}, raced by a liar, was read only from nodes that held its bytes under another binding. */
        static boolean liarsBindingOnly(PutRecord p, Sources served) {
            return p.racedByLiar && served != null && served.inSlot().isEmpty();
        }
    }

    private final ArrayDeque<Answer> answers = new ArrayDeque<>();
    // (asker port, request id) -> the key of a replica read on its way.
    private final Map<Long, Id> replicaReads = new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, Id> eldest) {
            return size() > 10_000;
        }
    };

    GetDiagnosis(VirtualWorld world) {
        this.world = world;
        for (int i = 0; i < world.size(); i++) {
            indexOf.put(world.contact(i).address(), i);
        }
        world.network().observer(this::sent);
    }

    private static long requestKey(Address origin, long requestId) {
        return ((long) origin.port() << 40) ^ requestId;
    }

    private void sent(Address from, Address to, Envelope e) {
        if (e.body() instanceof GetRequest g) {
            forgetOld();
            long request = requestKey(g.origin().address(), g.originRequestId());
            if (keyOfRequest.put(request, g.key()) == null) {
                recorded.add(new Recorded(now(), request, null));
            }
        } else if (e.body() instanceof GetReply r) {
            Id key = keyOfRequest.get(requestKey(to, e.requestId()));
            Integer node = indexOf.get(from);
            if (key != null && node != null) {
                served.put(r, snapshot(node, key));
                recorded.add(new Recorded(now(), 0, r));
                Map<Bytes, Set<Bytes>> slots = new HashMap<>();
                for (ValueEntry v : r.values()) {
                    slots.put(v.value().sha256(), new HashSet<>());
                }
                liveSlots(node, key, slots);
                answered(new Answer(now(), node, indexOf.getOrDefault(to, -1), key, true, slots));
            }
        } else if (e.body() instanceof ReplicaRead r) {
            replicaReads.put(requestKey(from, e.requestId()), r.key());
        } else if (e.body() instanceof ReplicaReadReply r) {
            Id key = replicaReads.get(requestKey(to, e.requestId()));
            Integer node = indexOf.get(from);
            if (key != null && node != null) {
                Map<Bytes, Set<Bytes>> slots = new HashMap<>();
                for (ReplicaRecord rec : r.records()) {
                    if (!rec.tombstone()) {
                        slots.computeIfAbsent(rec.valueHash(), h -> new HashSet<>()).add(rec.slot());
                    }
                }
                answered(new Answer(now(), node, indexOf.getOrDefault(to, -1), key, false, slots));
            }
        } else if (e.body() instanceof StoreReplicas s) {
            Integer node = indexOf.get(to);
            for (ReplicaRecord r : s.records()) {
                if (node != null && !r.tombstone()) {
                    long[] at = copiesSent.computeIfAbsent(r.valueHash(), h -> new long[world.size()]);
                    at[node] = at[node] == 0 ? Math.max(1, now()) : at[node];
                }
            }
        }
    }

    private void forgetOld() {
        long now = now();
        while (!recorded.isEmpty() && now - recorded.peek().atNanos() > KEPT_NANOS) {
            Recorded r = recorded.poll();
            if (r.reply() != null) {
                served.remove(r.reply());
            } else {
                keyOfRequest.remove(r.requestKey());
            }
        }
    }

    private void answered(Answer a) {
        while (!answers.isEmpty() && a.atNanos() - answers.peek().atNanos() > KEPT_NANOS) {
            answers.poll();
        }
        answers.add(a);
    }

    /** Fills {@code slots} (value hash -> empty set) with the slots node {@code node} holds each hash live in. */
    private void liveSlots(int node, Id key, Map<Bytes, Set<Bytes>> slots) {
        if (slots.isEmpty()) {
            return;
        }
        for (StoredRecord r : world.store(node).scanKey(Store.Cursor.atKey(key), 100_000)) {
            if (!r.key().equals(key)) {
                break;
            }
            Set<Bytes> in = r.tombstone() ? null : slots.get(r.valueHash());
            if (in != null) {
                in.add(r.slot());
            }
        }
    }

    /**
     * Where a get of {@code key} through {@code gateway}, from {@code startNanos} until now, may have read value
     * {@code hash}: each node whose answer to the gateway carried the hash (the gateway itself, now, when none came
     * over the network: it answered from its own store), and each replica whose records such a node read for a
     * quorum get carried it: the nodes among them that held it live in {@code slot}, and whether any held it live in
     * another slot (a put of the same bytes under another binding); null when no source of it is known.
     */
    /** Where get {@code g} may have read {@code p}'s bytes ({@link #servedFromSlot}). */
    Sources servedFrom(Checker.GetRecord g, PutRecord p) {
        return servedFromSlot(g.key(), g.gateway(), g.startNanos(), p.hash, p.slot);
    }

    private Sources servedFromSlot(Id key, int gateway, long startNanos, Bytes hash, Bytes slot) {
        Set<Integer> answerers = new HashSet<>();
        Set<Integer> inSlot = new HashSet<>();
        boolean elsewhere = false;
        for (Answer a : answers) {
            if (a.get() && a.to() == gateway && a.key().equals(key) && a.atNanos() >= startNanos
                    && a.liveSlots().containsKey(hash)) {
                answerers.add(a.from());
                elsewhere |= heldElsewhere(a.from(), a.liveSlots().get(hash), slot, inSlot);
            }
        }
        if (answerers.isEmpty() && gateway >= 0) {
            Map<Bytes, Set<Bytes>> own = new HashMap<>();
            own.put(hash, new HashSet<>());
            liveSlots(gateway, key, own);
            answerers.add(gateway);
            elsewhere |= heldElsewhere(gateway, own.get(hash), slot, inSlot);
        }
        for (Answer a : answers) {
            if (!a.get() && answerers.contains(a.to()) && a.key().equals(key) && a.atNanos() >= startNanos
                    && a.liveSlots().containsKey(hash)) {
                elsewhere |= heldElsewhere(a.from(), a.liveSlots().get(hash), slot, inSlot);
            }
        }
        return inSlot.isEmpty() && !elsewhere ? null : new Sources(inSlot, elsewhere);
    }

    /** Adds {@code node} to {@code inSlot} if it held the bytes in {@code slot}; whether it held them in another. */
    private static boolean heldElsewhere(int node, Set<Bytes> held, Bytes slot, Set<Integer> inSlot) {
        if (held.contains(slot)) {
            inSlot.add(node);
        }
        return held.stream().anyMatch(s -> !s.equals(slot));
    }

    /** Whether a copy of value {@code hash} was sent to node {@code node} at or before {@code atNanos}. */
    boolean copySent(int node, Bytes hash, long atNanos) {
        long[] at = copiesSent.get(hash);
        return at != null && at[node] != 0 && at[node] <= atNanos;
    }

    /** Node {@code node}'s view of {@code key} and what it holds of it, now. */
    Served snapshot(int node, Id key) {
        Set<Bytes> values = new HashSet<>();
        boolean any = false;
        for (StoredRecord r : world.store(node).scanKey(Store.Cursor.atKey(key), 100_000)) {
            if (!r.key().equals(key)) {
                break;
            }
            any = true;
            if (!r.tombstone()) {
                values.add(r.valueHash());
            }
        }
        return new Served(node, now(), world.node(node).replicaView(key), values, any);
    }

    /** The node that answered {@code reply}, if recorded, left for {@link #answerer} to take. */
    Served peek(Message reply) {
        return served.get(reply);
    }

    /** The node that answered {@code reply}, if recorded (null if not), no longer kept here. */
    Served take(Message reply) {
        return served.remove(reply);
    }

    /** Who answered with {@code reply}: the sender of the reply, or (sent by nobody) the gateway itself, now. */
    Served answerer(Message reply, int gateway, Id key) {
        Served s = served.remove(reply);
        return s != null ? s : gateway >= 0 ? snapshot(gateway, key) : null;
    }

    void event(String kind, int node) {
        events.add(new Event(now(), kind, node));
    }

    private long now() {
        return world.scheduler().nanoTime();
    }

    /** The k live nodes closest to {@code key}: the true replica set. */
    List<Integer> trueReplicas(Id key) {
        List<Integer> live = new ArrayList<>(world.liveIndexes());
        live.sort((a, b) -> {
            Id ia = world.contact(a).id();
            Id ib = world.contact(b).id();
            return ia.equals(ib) ? 0 : ia.isCloserTo(key, ib) ? -1 : 1;
        });
        return live.subList(0, Math.min(world.config().replicas(), live.size()));
    }

    /** How long before {@code atNanos} the last partition healed, in buckets. */
    private String sinceHeal(long atNanos) {
        for (int i = events.size() - 1; i >= 0; i--) {
            Event e = events.get(i);
            if (e.atNanos() > atNanos) {
                continue;
            }
            if (e.kind().equals("partition")) {
                return "get during a partition";
            }
            if (e.kind().equals("heal")) {
                long s = (atNanos - e.atNanos()) / SECOND;
                return s < 10 ? "heal 1-10 s before" : s < 30 ? "heal 10-30 s before" : s < 60 ? "heal 30-60 s before"
                        : "heal over 60 s before";
            }
        }
        return "no partition before";
    }

    /** Whether node {@code node}'s disk was full at {@code atNanos}. */
    private boolean diskFullAt(int node, long atNanos) {
        boolean full = false;
        for (Event e : events) {
            if (e.atNanos() > atNanos) {
                break;
            }
            if (e.node() == node && e.kind().startsWith("disk-")) {
                full = e.kind().equals("disk-full");
            }
        }
        return full;
    }

    /** The live nodes nearest to node {@code node} on each side, leafSetHalf per side: its true leaf set. */
    List<Integer> trueNeighbours(int node) {
        List<Integer> live = new ArrayList<>(world.liveIndexes());
        live.remove(Integer.valueOf(node));
        Id self = world.contact(node).id();
        List<Integer> cw = new ArrayList<>(live);
        cw.sort((a, b) -> self.compareClockwise(world.contact(a).id(), world.contact(b).id()));
        int half = Math.min(world.config().leafSetHalf(), cw.size());
        Set<Integer> out = new java.util.LinkedHashSet<>(cw.subList(0, half));
        out.addAll(cw.subList(cw.size() - half, cw.size()));
        return new ArrayList<>(out);
    }

    /** Events between {@code from} and {@code to}, by kind, as "crash 3, heal" etc. */
    List<Event> eventsDuring(long from, long to) {
        List<Event> out = new ArrayList<>();
        for (int i = events.size() - 1; i >= 0 && events.get(i).atNanos() >= from; i--) {
            if (events.get(i).atNanos() <= to) {
                out.add(events.get(i));
            }
        }
        return out;
    }

    /**
     * Classifies one rule-1 miss of {@code value} (a put acknowledged at {@code ackNanos}, on {@code holdersAtAck}
     * then) by a get of {@code key} from {@code startNanos}, answered as {@code s}; returns the detail line.
     */
    String classify(Bytes value, Id key, long ackNanos, List<Integer> holdersAtAck, Set<Integer> lostAt,
                    long startNanos, Served s, List<Integer> holdersNow) {
        String cause;
        List<Integer> trueSet = trueReplicas(key);
        StringBuilder d = new StringBuilder();
        if (s == null) {
            cause = "unknown answerer";
        } else {
            long sinceStart = s.view().startedAtNanos() < 0 ? -1 : s.atNanos() - s.view().startedAtNanos();
            long sinceLeaf = s.view().leafSetChangedAtNanos() < 0 ? -1 : s.atNanos() - s.view().leafSetChangedAtNanos();
            boolean recent = (sinceStart >= 0 && sinceStart < RECENT_NANOS) || (sinceLeaf >= 0 && sinceLeaf < RECENT_NANOS);
            cause = cause(value, ackNanos, holdersAtAck, lostAt, s, trueSet);
            cause += recent ? " [view < 10 s old]" : "";
            d.append(String.format(Locale.ROOT, "answered by node %d (%s, %s; %s of the key) %.3f s after start, "
                            + "%s after its leaf set changed; its replica set %s",
                    s.node(), s.view().replica() ? "replica" : "not replica", s.view().root() ? "root" : "not root",
                    s.heldAny() ? s.values().size() + " values" : "no record", sinceStart / 1e9,
                    sinceLeaf < 0 ? "never" : String.format(Locale.ROOT, "%.3f s", sinceLeaf / 1e9),
                    indexes(s.view().replicaSet())));
            d.append(", with suspects ").append(indexes(s.view().withSuspects())).append(", leaf set ")
                    .append(indexes(s.view().leafSet()));
        }
        List<Event> around = eventsDuring(Math.min(ackNanos, startNanos - 10 * SECOND), now());
        Set<String> kinds = new java.util.TreeSet<>();
        for (Event e : around) {
            kinds.add(e.kind());
        }
        causes.merge(cause, 1, Integer::sum);
        causes.merge(cause + " | " + (kinds.isEmpty() ? "no crash/partition/heal" : String.join("+", kinds))
                + " near", 1, Integer::sum);
        causes.merge(cause + " | " + sinceHeal(startNanos), 1, Integer::sum);
        d.append("; true replicas ").append(trueSet).append(", holders at ack ").append(holdersAtAck)
                .append(", now ").append(holdersNow).append(", events since ").append(around);
        return "[" + cause + "] " + d;
    }

    /** The cause of a miss by answerer {@code s}, as {@link #classify} counts it. */
    private String cause(Bytes value, long ackNanos, List<Integer> holdersAtAck, Set<Integer> lostAt, Served s,
                         List<Integer> trueSet) {
        boolean trueReplica = trueSet.contains(s.node());
        // A live node among the answerer's true neighbours (the nearest live nodes on each side, as many as a leaf
        // set holds) that its leaf set does not hold: its view of the ring is wrong there.
        List<Integer> leaf = indexes(s.view().leafSet());
        boolean viewLacks = false;
        for (int t : trueNeighbours(s.node())) {
            viewLacks |= !leaf.contains(t);
        }
        boolean ackedOffSet = !trueSet.containsAll(holdersAtAck) || holdersAtAck.size() < 2;
        if (s.values().contains(value)) {
            return "held it, not returned";
        } else if (!s.view().replica()) {
            return "answerer not a replica in its view";
        } else if (lostAt.contains(s.node())) {
            return "answerer lost its copy to a disk fault";
        } else if (viewLacks) {
            return "answerer's leaf set lacks one of its nearest live nodes ("
                + (trueReplica ? "answerer a true replica" : "answerer no true replica") + ")";
        } else if (!trueReplica) {
            return "answerer is no true replica, its leaf set complete (edge)";
        } else if (!s.heldAny()) {
            return s.view().root() ? "empty root" : "empty non-root replica";
        } else if (holdersAtAck.contains(s.node())) {
            return "answerer held it at the ack, not now";
        } else if (diskFullAt(s.node(), ackNanos)) {
            return "true replica missed the copy: its disk was full at the put";
        } else if (ackedOffSet) {
            return "true replica missed the copy: put stored off the true replica set";
        } else {
            return "true replica missed the copy, put on true replicas";
        }
    }

    private List<Integer> indexes(List<Contact> contacts) {
        List<Integer> out = new ArrayList<>();
        for (Contact c : contacts) {
            out.add(indexOf.getOrDefault(c.address(), -1));
        }
        return out;
    }

    /** Rule-1 misses by cause (and by cause with the faults around them, indented). */
    Map<String, Integer> causes() {
        return new TreeMap<>(causes);
    }
}
