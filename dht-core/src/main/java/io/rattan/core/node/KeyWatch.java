package io.rattan.core.node;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.Status;
import io.rattan.api.ValueFilter;
import io.rattan.core.msg.ReplicaMessages.ReplicaRecord;
import io.rattan.core.msg.RequestMessages.ValueEntry;
import io.rattan.core.msg.WatchKind;
import io.rattan.core.msg.WatchMessages.WatchEvent;
import io.rattan.core.net.Contact;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * A gateway's watch of one key: its clients, what it knows of the key's values ({@link WatchedValues}), the events
 * it delivered (the last {@value #LOG_MAX}, so that a client that reconnects resumes where it was), and the replicas
 * it is registered at ({@link ClientWatches} runs the registrations). One key, one watch, however many clients.
 */
final class KeyWatch {

    static final int LOG_MAX = 1024;

    /** A replica this watch is registered at: the last change it numbered, and renewals it left unanswered. */
    static final class Holder {
        Contact contact;
        long lastNumber;
        int misses;
        boolean needsRead = true;

        Holder(Contact contact) {
            this.contact = contact;
        }
    }

    private record Client(ValueFilter filter, Consumer<WatchEvent> sink) {
    }

    final Id key;
    final long epoch;
    final Map<Id, Holder> holders = new LinkedHashMap<>();
    private final WatchedValues values = new WatchedValues();
    private final Map<Long, Client> clients = new HashMap<>();
    private final ArrayDeque<WatchEvent> log = new ArrayDeque<>();
    private long seq;
    private boolean ready;
    /** Registrations (and their reads) of the current round not answered yet; the first round's end is READY. */
    int roundOutstanding;
    /** Whether some replica took the registration this round. */
    boolean roundTaken;
    long nextRenewNanos;
    long lingerUntilNanos;
    int findFailures;
    /** Why the last replica refused the watch: what clients hear if none takes it. */
    Status lastRefusal = Status.UNAVAILABLE;

    KeyWatch(Id key, long epoch) {
        this.key = key;
        this.epoch = epoch;
    }

    /**
     * A client starts watching: the events after {@code resumeSeq} of this epoch if the log still holds them all,
     * else every live value; then READY if the first round is over (its detail {@link WatchEvent#RESUMED} after the
     * events since).
     */
    void add(long id, ValueFilter filter, Consumer<WatchEvent> sink, long resumeEpoch, long resumeSeq,
             long nowMillis) {
        Client c = new Client(filter, sink);
        clients.put(id, c);
        boolean resumed = resumeEpoch == epoch && resumeSeq <= seq
                && (resumeSeq == seq || firstLogged() <= resumeSeq + 1);
        if (resumed) {
            for (WatchEvent e : log) {
                if (e.seq() > resumeSeq && passes(c, e)) {
                    sink.accept(e);
                }
            }
        } else {
            for (WatchedValues.Change v : values.live(nowMillis)) {
                if (filter.matches(v.stamp())) {
                    sink.accept(WatchEvent.of(WatchKind.VALUE, epoch, seq, v.valueHash(), v.value()));
                }
            }
        }
        if (ready) {
            // A resumed client must tell the events since from a new snapshot, which it diffs against what it has.
            sink.accept(new WatchEvent(WatchKind.READY, epoch, seq, Bytes.EMPTY, WatchEvent.NO_VALUE, Status.OK,
                    resumed ? WatchEvent.RESUMED : ""));
        }
    }

    /** Removes a client; true when it was the last. */
    boolean remove(long id) {
        clients.remove(id);
        return clients.isEmpty();
    }

    boolean hasClients() {
        return !clients.isEmpty();
    }

    int clientCount() {
        return clients.size();
    }

    /** Records from a replica (a page read or news): their changes go to every client. */
    void apply(List<ReplicaRecord> records, long nowMillis) {
        deliver(values.apply(records, nowMillis));
    }

    /** The values whose TTL ended go to every client as EXPIRED. */
    void expire(long nowMillis) {
        deliver(values.expire(nowMillis));
    }

    /** The first round of registrations is over: every client hears READY. */
    void ready() {
        if (!ready) {
            ready = true;
            WatchEvent e = WatchEvent.of(WatchKind.READY, epoch, seq, Bytes.EMPTY,
                    WatchEvent.NO_VALUE);
            clients.values().forEach(c -> c.sink().accept(e));
        }
    }

    boolean isReady() {
        return ready;
    }

    /** Ends every client's watch with {@code status}. */
    void end(Status status, String detail) {
        WatchEvent e = WatchEvent.ended(status, detail);
        List<Client> all = List.copyOf(clients.values());
        clients.clear();
        all.forEach(c -> c.sink().accept(e));
    }

    private void deliver(List<WatchedValues.Change> changes) {
        for (WatchedValues.Change ch : changes) {
            seq++;
            WatchEvent e = WatchEvent.of(ch.kind(), epoch, seq, ch.valueHash(),
                    ch.value() == null ? new ValueEntry(Bytes.EMPTY, 0, ch.stamp()) : ch.value());
            log.addLast(e);
            if (log.size() > LOG_MAX) {
                log.removeFirst();
            }
            for (Client c : List.copyOf(clients.values())) {
                if (c.filter().matches(ch.stamp())) {
                    c.sink().accept(e);
                }
            }
        }
    }

    private long firstLogged() {
        return log.isEmpty() ? seq + 1 : log.peekFirst().seq();
    }

    private static boolean passes(Client c, WatchEvent e) {
        // A removed or expired value's event carries its stamp too (with no bytes), for the filters.
        return c.filter().matches(e.value().stamp());
    }
}
