package io.rattan.core.node;

import static io.rattan.core.node.NodeContext.nanos;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.api.ValueFilter;
import io.rattan.core.msg.ReplicaMessages.ReplicaRecord;
import io.rattan.core.msg.SecretBinding;
import io.rattan.core.msg.WatchMessages.Watch;
import io.rattan.core.msg.WatchMessages.WatchAck;
import io.rattan.core.msg.WatchMessages.WatchChange;
import io.rattan.core.net.Contact;
import io.rattan.core.store.StoreException;
import io.rattan.core.store.StoredRecord;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A replica's side of watches: the gateways that watch each key, as soft state with a lease, and the news it owes
 * them. Every record this node stores for a watched key (a put, a copy, a repair, a remove) goes to each watching
 * gateway at once (tombstones as the remove wrote them), numbered per watch so that a gateway sees a gap. Owned by the node's event loop.
 */
final class Watchers {

    private static final class Registration {
        Contact gateway;
        long epoch;
        long expiresAtNanos;
        long sent;
    }

    private final NodeContext ctx;
    private final Membership members;
    private final LocalReplica replica;
    private final Map<Id, Map<Id, Registration>> byKey = new HashMap<>();
    private final Map<Id, Integer> perGateway = new HashMap<>();
    private int count;
    private long sweptAtNanos;

    Watchers(NodeContext ctx, Membership members, LocalReplica replica) {
        this.ctx = ctx;
        this.members = members;
        this.replica = replica;
    }

    /** Registers, renews or ends {@code from}'s watch of a key, and reads the page of records it asked for. */
    WatchAck register(Contact from, Watch w) {
        List<Contact> replicas = members.replicaSet(w.key());
        if (w.leaseMillis() == 0) {
            drop(w.key(), from.id());
            return new WatchAck(Status.OK, false, 0, replicas, List.of(), false);
        }
        if (!replicas.contains(ctx.self())) {
            return new WatchAck(Status.NOT_FOUND, false, 0, replicas, List.of(), false);
        }
        Map<Id, Registration> regs = byKey.get(w.key());
        Registration r = regs == null ? null : regs.get(from.id());
        boolean renewed = r != null && r.epoch == w.epoch() && r.gateway.equals(from);
        if (r == null) {
            WatchLimits limits = ctx.config().watch();
            if (count >= limits.registrationsMax()
                    || perGateway.getOrDefault(from.id(), 0) >= limits.registrationsPerGatewayMax()) {
                return new WatchAck(Status.RATE_LIMITED, false, 0, replicas, List.of(), false);
            }
            r = new Registration();
            byKey.computeIfAbsent(w.key(), k -> new LinkedHashMap<>()).put(from.id(), r);
            perGateway.merge(from.id(), 1, Integer::sum);
            count++;
        }
        if (!renewed) {
            r.gateway = from;
            r.epoch = w.epoch();
            r.sent = 0;
        }
        r.expiresAtNanos = ctx.now() + nanos(w.leaseMillis());
        if (!w.wantRecords()) {
            return new WatchAck(Status.OK, renewed, r.sent, replicas, List.of(), false);
        }
        try {
            RecordPage page = replica.readRecords(w.key(), w.placemark(), 0, ValueFilter.NONE);
            return new WatchAck(Status.OK, renewed, r.sent, replicas, forWatcher(page.records()), page.more());
        } catch (StoreException e) {
            return new WatchAck(LocalReplica.statusOf(e), renewed, r.sent, replicas, List.of(), false);
        }
    }

    /** This node stored {@code records}: each watching gateway of their keys hears of them. */
    void stored(List<StoredRecord> records) {
        if (byKey.isEmpty() || records.isEmpty()) {
            return;
        }
        Map<Id, List<StoredRecord>> byItsKey = new LinkedHashMap<>();
        for (StoredRecord s : records) {
            if (byKey.containsKey(s.key())) {
                byItsKey.computeIfAbsent(s.key(), k -> new ArrayList<>()).add(s);
            }
        }
        long now = ctx.now();
        byItsKey.forEach((key, theirs) -> {
            List<ReplicaRecord> wire = forWatcher(theirs);
            for (Registration r : List.copyOf(byKey.get(key).values())) {
                if (r.expiresAtNanos - now <= 0) {
                    drop(key, r.gateway.id());
                } else {
                    r.sent++;
                    ctx.outbox().send(r.gateway.address(), 0, new WatchChange(key, r.epoch, r.sent, wire));
                }
            }
        });
    }

    /** Every third of a lease: forgets the registrations whose lease ended. */
    void sweepIfDue() {
        long now = ctx.now();
        if (now - sweptAtNanos < nanos(ctx.config().watch().renewMillis())) {
            return;
        }
        sweptAtNanos = now;
        for (Iterator<Map.Entry<Id, Map<Id, Registration>>> keys = byKey.entrySet().iterator(); keys.hasNext(); ) {
            Map<Id, Registration> regs = keys.next().getValue();
            for (Iterator<Registration> it = regs.values().iterator(); it.hasNext(); ) {
                Registration r = it.next();
                if (r.expiresAtNanos - now <= 0) {
                    it.remove();
                    released(r.gateway.id());
                }
            }
            if (regs.isEmpty()) {
                keys.remove();
            }
        }
    }

    /** How many registrations this node holds. */
    int count() {
        return count;
    }

    private void drop(Id key, Id gateway) {
        Map<Id, Registration> regs = byKey.get(key);
        if (regs != null && regs.remove(gateway) != null) {
            released(gateway);
            if (regs.isEmpty()) {
                byKey.remove(key);
            }
        }
    }

    private void released(Id gateway) {
        count--;
        perGateway.computeIfPresent(gateway, (g, n) -> n == 1 ? null : n - 1);
    }

    /**
     * Records as a watcher sees them: a tombstone without its secret, which opens the value's binding, but with that
     * binding (what every node on the put's path saw), so that the watcher knows which value's slot it names.
     */
    private List<ReplicaRecord> forWatcher(List<StoredRecord> records) {
        List<ReplicaRecord> wire = new ArrayList<>(records.size());
        for (StoredRecord s : records) {
            ReplicaRecord r = replica.toWire(s);
            Bytes binding = r.tombstone() && !r.secret().isEmpty()
                    ? SecretBinding.of(r.secret(), r.key(), r.valueHash()) : r.binding();
            wire.add(new ReplicaRecord(r.key(), r.valueHash(), r.value(), r.expiresAtMillis(), binding,
                    Bytes.EMPTY, r.tombstone(), r.stamp()));
        }
        return wire;
    }
}
