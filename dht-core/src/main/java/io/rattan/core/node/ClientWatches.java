package io.rattan.core.node;

import static io.rattan.core.node.NodeContext.nanos;

import io.rattan.api.Bytes;
import io.rattan.api.GetOptions;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.core.msg.ClientMessages.ClientGet;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.ReplicaMessages.ReplicaRecord;
import io.rattan.core.msg.RequestMessages.ErrorReply;
import io.rattan.core.msg.RequestMessages.GetReply;
import io.rattan.core.msg.WatchMessages.ClientWatch;
import io.rattan.core.msg.WatchMessages.Watch;
import io.rattan.core.msg.WatchMessages.WatchAck;
import io.rattan.core.msg.WatchMessages.WatchChange;
import io.rattan.core.msg.WatchMessages.WatchEvent;
import io.rattan.core.net.Contact;
import io.rattan.core.testing.PlantedBugs;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * This node as the gateway of clients' watches. One {@link KeyWatch} per watched key, whatever the number of its
 * clients: it finds the key's replicas with a routed get, registers at each of them (a {@link Watch} whose answer
 * reads the replica's records from the moment the registration holds), and is READY once every replica it asked has
 * answered or timed out. From then on each replica pushes what it stores ({@link WatchChange}); a renewal every
 * third of the lease keeps the registrations, registers at replicas that joined the key's set, and reads again from
 * a replica that lost the registration or whose numbered news shows a gap. So a put acknowledged after READY
 * reaches the watch either pushed by a replica that stored it or read at the next renewal. Owned by the event loop.
 */
final class ClientWatches {

    private static final long RETRY_MILLIS = 1_000;
    private static final int FIND_TRIES = 3;
    private static final int MISSES_MAX = 2;

    private final NodeContext ctx;
    /** Serves a client request here, as {@link Node#handleClient} does: how a watch finds its key's replicas. */
    private final BiConsumer<Message, Consumer<Message>> requests;
    private final Map<Id, KeyWatch> byKey = new HashMap<>();
    private final Map<Long, KeyWatch> byWatch = new HashMap<>();
    private long nextWatchId = 1;

    private final boolean neverReadAgain;

    ClientWatches(NodeContext ctx, BiConsumer<Message, Consumer<Message>> requests, PlantedBugs bugs) {
        this.ctx = ctx;
        this.requests = requests;
        this.neverReadAgain = bugs.has(PlantedBugs.Bug.WATCH_NEVER_READS_AGAIN);
    }

    /** Starts a client's watch; its id, or 0 when refused ({@code sink} has heard ENDED). */
    long watch(ClientWatch w, Consumer<WatchEvent> sink) {
        WatchLimits limits = ctx.config().watch();
        if (byWatch.size() >= limits.watchesMax()) {
            sink.accept(WatchEvent.ended(Status.RATE_LIMITED, "this gateway serves its most watches, "
                    + limits.watchesMax() + "; watch through another"));
            return 0;
        }
        KeyWatch kw = byKey.get(w.key());
        boolean fresh = kw == null;
        if (fresh) {
            long epoch;
            do {
                epoch = ctx.random().nextLong();
            } while (epoch == 0);
            kw = new KeyWatch(w.key(), epoch);
            kw.nextRenewNanos = ctx.now() + nanos(limits.renewMillis());
            byKey.put(w.key(), kw);
        }
        long id = nextWatchId++;
        byWatch.put(id, kw);
        kw.add(id, w.filter(), sink, w.resumeEpoch(), w.resumeSeq(), ctx.clock().epochMillis());
        if (fresh) {
            find(kw);
        }
        return id;
    }

    /** Ends a client's watch; the key's watch lingers a third of the lease for a client that comes back. */
    void unwatch(long id) {
        KeyWatch kw = byWatch.remove(id);
        if (kw != null && kw.remove(id)) {
            kw.lingerUntilNanos = ctx.now() + nanos(ctx.config().watch().renewMillis());
        }
    }

    /** Whether this node holds a watch of some key (its clients may all have left: it lingers). */
    boolean active() {
        return !byKey.isEmpty();
    }

    /** How many client watches this node serves. */
    int count() {
        return byWatch.size();
    }

    /** A replica's news of a watched key. */
    void onChange(Contact from, WatchChange c) {
        KeyWatch kw = byKey.get(c.key());
        KeyWatch.Holder h = kw == null || c.epoch() != kw.epoch ? null : kw.holders.get(from.id());
        if (h == null) {
            return;
        }
        if (c.number() > h.lastNumber + 1 && !h.needsRead && !neverReadAgain) {
            h.needsRead = true;
            ask(kw, h, Bytes.EMPTY);
        }
        h.lastNumber = Math.max(h.lastNumber, c.number());
        kw.apply(c.records(), ctx.clock().epochMillis());
    }

    /** Once a second: expiries, renewals, and the end of watches no client came back to. */
    void tick() {
        long now = ctx.now();
        long nowMillis = ctx.clock().epochMillis();
        for (KeyWatch kw : List.copyOf(byKey.values())) {
            kw.expire(nowMillis);
            // A watch without clients had its last one leave (unwatch), which set when its lingering ends.
            if (!kw.hasClients() && now - kw.lingerUntilNanos >= 0) {
                close(kw);
            } else if (kw.isReady() && now - kw.nextRenewNanos >= 0) {
                renew(kw);
            }
        }
    }

    /** The node stops: every client's watch ends. */
    void stop() {
        for (KeyWatch kw : List.copyOf(byKey.values())) {
            kw.end(Status.UNAVAILABLE, "the gateway node is stopping");
        }
        byKey.clear();
        byWatch.clear();
    }

    private void find(KeyWatch kw) {
        ClientGet get = ClientGet.of(kw.key, GetOptions.defaults()).page(1, Bytes.EMPTY).askingHolders();
        requests.accept(get, reply -> {
            if (byKey.get(kw.key) != kw) {
                return;
            }
            List<Contact> found = reply instanceof GetReply g ? g.holders() : List.of();
            if (found.isEmpty()) {
                failed(kw, reply instanceof ErrorReply e ? e.status() : Status.UNAVAILABLE,
                        "no replica of the key answered the gateway's get: " + reply);
                return;
            }
            kw.roundOutstanding++;
            register(kw, found);
            roundAnswered(kw);
        });
    }

    /** Registers at the replicas among the k closest of those known and {@code seen} that it is not registered at. */
    private void register(KeyWatch kw, List<Contact> seen) {
        Map<Id, Contact> all = new LinkedHashMap<>();
        kw.holders.values().forEach(h -> all.put(h.contact.id(), h.contact));
        seen.forEach(c -> all.putIfAbsent(c.id(), c));
        List<Contact> closest = new ArrayList<>(all.values());
        closest.sort((a, b) -> a.id().equals(b.id()) ? 0 : a.id().isCloserTo(kw.key, b.id()) ? -1 : 1);
        List<Contact> target = closest.subList(0, Math.min(ctx.config().replicas(), closest.size()));
        for (KeyWatch.Holder h : List.copyOf(kw.holders.values())) {
            if (!target.contains(h.contact)) {
                kw.holders.remove(h.contact.id());
                cancel(kw, h.contact);
            }
        }
        for (Contact c : target) {
            if (!kw.holders.containsKey(c.id())) {
                KeyWatch.Holder h = new KeyWatch.Holder(c);
                kw.holders.put(c.id(), h);
                ask(kw, h, Bytes.EMPTY);
            }
        }
    }

    private void renew(KeyWatch kw) {
        kw.nextRenewNanos = ctx.now() + nanos(ctx.config().watch().renewMillis());
        if (kw.holders.isEmpty()) {
            find(kw);
            return;
        }
        kw.roundTaken = false;
        for (KeyWatch.Holder h : List.copyOf(kw.holders.values())) {
            ask(kw, h, Bytes.EMPTY);
        }
    }

    /** A registration (or renewal) at {@code h}, with a read of its records from {@code placemark} if it needs one. */
    private void ask(KeyWatch kw, KeyWatch.Holder h, Bytes placemark) {
        kw.roundOutstanding++;
        boolean read = h.needsRead;
        Watch m = new Watch(kw.key, kw.epoch, (int) ctx.config().watch().leaseMillis(), read, placemark);
        ctx.outbox().request(h.contact, m, nanos(ctx.config().requestTimeoutMillis()), ReplyHandler.of(
                e -> answered(kw, h, read, e.body()), () -> unanswered(kw, h)));
    }

    private void answered(KeyWatch kw, KeyWatch.Holder h, boolean read, Message body) {
        if (byKey.get(kw.key) != kw) {
            return;
        }
        if (!(body instanceof WatchAck a) || a.status() != Status.OK) {
            kw.holders.remove(h.contact.id());
            if (body instanceof WatchAck a) {
                kw.lastRefusal = a.status();
                register(kw, a.replicas());
            }
        } else if (kw.holders.get(h.contact.id()) == h) {
            h.misses = 0;
            kw.roundTaken = true;
            if (!a.renewed()) {
                h.lastNumber = 0;
            } else if (!read && a.changesSent() != h.lastNumber) {
                h.needsRead = !neverReadAgain;
                h.lastNumber = a.changesSent();
            }
            if (read) {
                kw.apply(a.records(), ctx.clock().epochMillis());
                h.needsRead = a.more();
            } else if (!a.renewed()) {
                // The replica had lost the registration (restarted, or the lease ran out): read it again.
                h.needsRead = !neverReadAgain;
            }
            if (h.needsRead) {
                ask(kw, h, read && a.more() ? lastSlot(a.records()) : Bytes.EMPTY);
            }
            register(kw, a.replicas());
        }
        roundAnswered(kw);
    }

    private void unanswered(KeyWatch kw, KeyWatch.Holder h) {
        if (byKey.get(kw.key) != kw) {
            return;
        }
        if (++h.misses >= MISSES_MAX) {
            kw.holders.remove(h.contact.id());
        }
        roundAnswered(kw);
    }

    private void roundAnswered(KeyWatch kw) {
        if (--kw.roundOutstanding > 0 || byKey.get(kw.key) != kw) {
            return;
        }
        if (kw.roundTaken || kw.isReady()) {
            kw.findFailures = 0;
            kw.ready();
        } else {
            failed(kw, kw.lastRefusal, "no replica of the key took the watch");
        }
    }

    /** No replica took the watch: tried again a second later, and before READY, given up after a few tries. */
    private void failed(KeyWatch kw, Status why, String detail) {
        if (!kw.isReady() && ++kw.findFailures >= FIND_TRIES) {
            end(kw, why, detail);
            return;
        }
        ctx.scheduler().schedule(nanos(RETRY_MILLIS), () -> {
            if (byKey.get(kw.key) == kw && !ctx.stopped()) {
                find(kw);
            }
        });
    }

    private void close(KeyWatch kw) {
        byKey.remove(kw.key);
        kw.holders.values().forEach(h -> cancel(kw, h.contact));
    }

    private void cancel(KeyWatch kw, Contact c) {
        ctx.outbox().request(c, new Watch(kw.key, kw.epoch, 0, false, Bytes.EMPTY),
                nanos(ctx.config().requestTimeoutMillis()), ReplyHandler.of(e -> { }, () -> { }));
    }

    private void end(KeyWatch kw, Status status, String detail) {
        byKey.remove(kw.key);
        byWatch.values().removeIf(w -> w == kw);
        kw.end(status, detail);
    }

    private static Bytes lastSlot(List<ReplicaRecord> records) {
        return records.isEmpty() ? Bytes.EMPTY : records.get(records.size() - 1).slot();
    }
}
