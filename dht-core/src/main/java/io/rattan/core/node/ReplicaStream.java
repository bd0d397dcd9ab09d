package io.rattan.core.node;

import static io.rattan.core.node.NodeContext.nanos;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.core.msg.RepairMessages.DigestEntry;
import io.rattan.core.msg.ReplicaMessages.ReplicaRecord;
import io.rattan.core.msg.ReplicaMessages.StoreAck;
import io.rattan.core.msg.ReplicaMessages.StoreReplicas;
import io.rattan.core.net.Contact;
import io.rattan.core.store.StoredRecord;
import io.rattan.core.testing.PlantedBugs;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The copies owed to one peer, sent with flow control: pages of {@link StoreReplicas} of bounded size, at most
 * {@link #WINDOW} unacknowledged at a time, the next only when the peer acknowledged one, so the sender never runs
 * ahead of what the receiver stores. A page not acknowledged is sent again (the same records, read afresh) with
 * growing pauses; after {@link #ATTEMPTS} tries the stream stalls with its records kept, and {@link #resume} carries on
 * from them. Records leave the stream only when acknowledged or when they expired meanwhile; the records of a peer
 * that left the view are counted and logged ({@link #abandon}). Owned by the node's event loop.
 */
final class ReplicaStream {

    private static final Logger log = LoggerFactory.getLogger(ReplicaStream.class);
    static final int WINDOW = 4;
    static final int PAGE_BYTES_MAX = 256 * 1024;
    static final int ATTEMPTS = 4;

    /** A record owed, by identity: it is read from the store when its page is sent. */
    record Ref(Id key, Bytes slot) {
        /** The records a digest names. */
        static List<Ref> of(List<DigestEntry> entries) {
            List<Ref> refs = new ArrayList<>(entries.size());
            for (DigestEntry d : entries) {
                refs.add(new Ref(d.key(), d.slot()));
            }
            return refs;
        }
    }

    /** What streams have done, summed over a node's life, for metrics and reports. */
    static final class Counters {
        long pagesSent;
        long pagesResent;
        long recordsAcked;
        long bytesSent;
        long recordsAbandoned;
    }

    /** A page out of the queue until acknowledged; {@code sends} tells the latest send's answer from a late one. */
    private static final class Flight {
        final List<Ref> page;
        int attempt = 1;
        int sends;
        /** A send of it is out, its answer awaited (not while its records are read or it pauses between tries). */
        boolean awaited;

        Flight(List<Ref> page) {
            this.page = page;
        }
    }

    private final NodeContext ctx;
    private final LocalReplica replica;
    private final Contact peer;
    private final Counters counters;
    // Sized for the common case, nothing owed: a node keeps one stream per leaf-set member.
    private final ArrayDeque<Ref> queue = new ArrayDeque<>(1);
    /** Null until the first record owed: most streams (one per leaf-set member) never owe one. */
    private Set<Ref> owed;
    private final List<Consumer<Boolean>> waiters = new ArrayList<>();
    /** The pages sent and not yet acknowledged, at most {@link #WINDOW}. */
    private final List<Flight> flights = new ArrayList<>();
    private boolean stalled;
    private boolean abandoned;
    private final PlantedBugs bugs;

    ReplicaStream(NodeContext ctx, LocalReplica replica, Contact peer, Counters counters, PlantedBugs bugs) {
        this.ctx = ctx;
        this.bugs = bugs;
        this.replica = replica;
        this.peer = peer;
        this.counters = counters;
    }

    /** Owes {@code r} to the peer (once, however often it is added until acknowledged) and sends what the window allows. */
    void add(StoredRecord r) {
        if (r.tombstone() && bugs.has(PlantedBugs.Bug.REPAIR_STREAMS_NO_TOMBSTONES)) {
            return;
        }
        Ref ref = new Ref(r.key(), r.slot());
        if (!abandoned && owed == null) {
            owed = new HashSet<>();
        }
        if (!abandoned && owed.add(ref)) {
            queue.add(ref);
        }
        pump();
    }

    Contact peer() {
        return peer;
    }

    /** Records owed and not yet acknowledged. */
    int owed() {
        return owed == null ? 0 : owed.size();
    }

    /** Runs {@code w} once nothing is owed (true) or the stream stalled with nothing in flight (false). */
    void whenDrained(Consumer<Boolean> w) {
        waiters.add(w);
        notifyIfSettled();
    }

    /** After a stall: sends the kept records again. */
    void resume() {
        stalled = false;
        pump();
    }

    /** The peer left the view: what it is still owed is dropped, counted and logged, never silently. */
    void abandon() {
        if (abandoned) {
            return;
        }
        abandoned = true;
        int dropped = owed();
        if (dropped > 0) {
            counters.recordsAbandoned += dropped;
            log.info("{} drops {} copies owed to {}, which left its leaf set", ctx.tag(), dropped, peer);
        }
        queue.clear();
        if (owed != null) {
            owed.clear();
        }
        flights.clear();
        stalled = true;
        List<Consumer<Boolean>> ws = List.copyOf(waiters);
        waiters.clear();
        ws.forEach(w -> w.accept(false));
    }

    /**
     * The peer answers again after a cut ({@link Repair#answersResumed}): every page still awaiting its answer goes
     * again now, with its tries given back, and a stalled stream carries on. A page sent during the cut waits out a
     * timeout that grows with each try (up to {@link #ATTEMPTS} times the RTO cap), and the window's pages hold back
     * every copy queued behind them, the puts made during the cut among them, while the peer answers gets without
     * them (seed 1864 of issue 34's long run). A copy is idempotent: a late acknowledgement of the earlier send settles
     * the page as the new one's would, and its late failure or timeout is ignored.
     */
    void answersResumed() {
        if (abandoned) {
            return;
        }
        for (Flight f : List.copyOf(flights)) {
            if (f.awaited) {
                f.attempt = 1;
                f.sends++;
                send(f);
            }
        }
        if (stalled) {
            resume();
        }
    }

    private void pump() {
        while (!stalled && !abandoned && flights.size() < WINDOW && !queue.isEmpty()) {
            Flight f = new Flight(nextPage());
            flights.add(f);
            send(f);
        }
        notifyIfSettled();
    }

    private List<Ref> nextPage() {
        List<Ref> page = new ArrayList<>();
        int bytes = 0;
        while (!queue.isEmpty() && page.size() < ctx.config().digestEntriesMax() && bytes < PAGE_BYTES_MAX) {
            Ref ref = queue.poll();
            page.add(ref);
            bytes += ctx.config().valueBytesMax() + 128;
        }
        return page;
    }

    /** Reads the page's records afresh, off the loop, and sends those still held. */
    private void send(Flight f) {
        f.awaited = false;
        replica.readEach(f.page, (held, failure) -> {
            if (!flights.contains(f) || f.awaited) {
                return;
            }
            if (failure != null) {
                log.debug("{} cannot read a page owed to {}: {}", ctx.tag(), peer, failure.toString());
                retry(f);
            } else {
                send(f, held);
            }
        });
    }

    private void send(Flight f, List<Optional<StoredRecord>> held) {
        List<ReplicaRecord> wire = new ArrayList<>(f.page.size());
        long bytes = 0;
        for (Optional<StoredRecord> r : held) {
            if (r.isPresent()) {
                ReplicaRecord w = replica.toWire(r.get());
                wire.add(w);
                bytes += w.value().length() + 128;
            }
        }
        if (wire.isEmpty()) {
            // Every record of the page expired since it was owed: nothing is left to send.
            settle(f);
            return;
        }
        counters.pagesSent++;
        counters.bytesSent += bytes;
        if (f.attempt > 1 || f.sends > 0) {
            counters.pagesResent++;
        }
        int send = ++f.sends;
        f.awaited = true;
        long timeout = nanos(ctx.config().rtoMaxMillis()) * f.attempt;
        ctx.outbox().request(peer, new StoreReplicas(wire), timeout, ReplyHandler.of(reply -> {
            if (!flights.contains(f)) {
                return;
            }
            if (reply.body() instanceof StoreAck) {
                counters.recordsAcked += f.page.size();
                settle(f);
            } else if (send == f.sends) {
                retry(f);
            }
        }, () -> {
            if (flights.contains(f) && send == f.sends) {
                retry(f);
            }
        }));
    }

    private void settle(Flight f) {
        flights.remove(f);
        f.page.forEach(owed::remove);
        pump();
    }

    private void retry(Flight f) {
        f.awaited = false;
        if (f.attempt < ATTEMPTS) {
            int sends = f.sends;
            ctx.scheduler().schedule(nanos(ctx.config().rtoMinMillis()) << f.attempt, () -> {
                // Unless it was sent again meanwhile (answersResumed) or the stream was abandoned.
                if (flights.contains(f) && sends == f.sends) {
                    f.attempt++;
                    send(f);
                }
            });
            return;
        }
        log.info("{} stalls its copies to {}: a page of {} went unacknowledged {} times; kept for the next round",
                ctx.tag(), peer, f.page.size(), ATTEMPTS);
        stalled = true;
        flights.remove(f);
        for (int i = f.page.size() - 1; i >= 0; i--) {
            queue.addFirst(f.page.get(i));
        }
        notifyIfSettled();
    }

    private void notifyIfSettled() {
        boolean settled = flights.isEmpty() && (queue.isEmpty() || stalled);
        if (!settled || waiters.isEmpty()) {
            return;
        }
        boolean ok = queue.isEmpty() && !stalled;
        List<Consumer<Boolean>> ws = List.copyOf(waiters);
        waiters.clear();
        ws.forEach(w -> w.accept(ok));
    }
}
