package io.rattan.client;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.api.OwnerStamp;
import io.rattan.api.SignedOp;
import io.rattan.api.ValueFilter;
import io.rattan.core.msg.WatchMessages.WatchEvent;
import io.rattan.core.owned.OwnerSignatures;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * What a watch has told its listener, so that it tells each value once across gateways. Each registration at a
 * gateway ({@link #begin}) first hears either the events since the watch's last position (the gateway still held
 * them: its READY says {@link WatchEvent#RESUMED}) or a snapshot, every live value again; a value already told is
 * not told again (unless an owned one's sequence is higher), and at the READY that ends a snapshot every value told
 * but missing from it is told removed, or expired if its TTL has run out by then. A removal or expiry of a value
 * never told is not told. Pure but for the clock; confined to one thread at a time (the watch's serial runner).
 */
final class WatchView {

    /** How close to its expiry a value missing from a snapshot counts as expired rather than removed. */
    static final long EXPIRY_SLACK_MILLIS = 2_000;

    private record Told(GetResult.Value value, long seq, long expiresAtMillis) {
    }

    private final Id key;
    private final ValueFilter filter;
    private final WatchListener listener;
    private final LongSupplier clockMillis;
    // Owned values' signatures verify in the watch's namespace only.
    private final String namespace;
    private final Map<Bytes, Told> told = new HashMap<>();
    /** The values a snapshot named so far; null outside one (after READY). */
    private Set<Bytes> snapshot;
    private boolean ready;
    private int forged;

    WatchView(String namespace, Id key, ValueFilter filter, WatchListener listener, LongSupplier clockMillis) {
        this.namespace = namespace;
        this.key = key;
        this.filter = filter;
        this.listener = listener;
        this.clockMillis = clockMillis;
    }

    /** A new registration starts: until its READY, what it sends may be a snapshot. */
    void begin() {
        snapshot = new HashSet<>();
    }

    /** Whether the current registration has sent its READY. */
    boolean registrationReady() {
        return snapshot == null;
    }

    /** An event other than ENDED, of the current registration. */
    void apply(WatchEvent e) {
        switch (e.kind()) {
            case VALUE -> value(e);
            case REMOVED, EXPIRED -> gone(e);
            case READY -> ready(e);
            case ENDED -> throw new IllegalArgumentException("ENDED is the stream's, not the view's");
        }
    }

    /** Values told and not removed or expired since; for tests. */
    int liveCount() {
        return told.size();
    }

    /** Owned values dropped since the last call because their signatures did not verify (or outside the filter). */
    int takeForged() {
        int n = forged;
        forged = 0;
        return n;
    }

    private void value(WatchEvent e) {
        Bytes hash = e.valueHash();
        if (snapshot != null) {
            snapshot.add(hash);
        }
        OwnerStamp stamp = e.value().stamp();
        long seq = stamp == null ? 0 : stamp.seq();
        long now = clockMillis.getAsLong();
        long expiresAt = now + e.value().ttlRemainingMillis();
        Told cur = told.get(hash);
        if (cur != null && Long.compareUnsigned(seq, cur.seq()) <= 0) {
            if (seq == cur.seq() && expiresAt > cur.expiresAtMillis()) {
                told.put(hash, new Told(cur.value(), seq, expiresAt));
            }
            return;
        }
        Bytes bytes = e.value().value();
        Bytes valueHash = bytes.sha256();
        if (!filter.matches(stamp) || (stamp != null && !OwnerSignatures.verifies(stamp, SignedOp.PUT,
                namespace, key, valueHash))) {
            forged++;
            return;
        }
        GetResult.Value v = new GetResult.Value(bytes, valueHash, Duration.ofMillis(e.value().ttlRemainingMillis()),
                stamp);
        told.put(hash, new Told(v, seq, expiresAt));
        listener.onValue(v);
    }

    private void gone(WatchEvent e) {
        if (snapshot != null) {
            snapshot.remove(e.valueHash());
        }
        Told cur = told.remove(e.valueHash());
        if (cur == null) {
            return;
        }
        if (e.kind() == io.rattan.core.msg.WatchKind.REMOVED) {
            listener.onRemoved(cur.value());
        } else {
            listener.onExpired(cur.value());
        }
    }

    private void ready(WatchEvent e) {
        if (snapshot != null && !WatchEvent.RESUMED.equals(e.detail())) {
            long now = clockMillis.getAsLong();
            List<Bytes> missing = new ArrayList<>();
            for (Bytes hash : told.keySet()) {
                if (!snapshot.contains(hash)) {
                    missing.add(hash);
                }
            }
            for (Bytes hash : missing) {
                Told t = told.remove(hash);
                if (t.expiresAtMillis() - now <= EXPIRY_SLACK_MILLIS) {
                    listener.onExpired(t.value());
                } else {
                    listener.onRemoved(t.value());
                }
            }
        }
        snapshot = null;
        if (!ready) {
            ready = true;
            listener.onReady();
        }
    }
}
