package io.rattan.sim.faults;

import io.rattan.core.msg.RequestMessages.GetReply;
import io.rattan.core.store.StoredRecord;
import io.rattan.core.virtual.VirtualWorld;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Rule 3: no get that starts later than a value's latest true expiry + S returns it while a live node whose clock is
 * within S of the true time holds it. When every holder's clock is off by more than S the case is only counted; a
 * value a clock fault touched, or that a gateway ahead of time stamped, is counted apart.
 */
final class ExpiryCheck {

    private final VirtualWorld world;
    private final StoreOracle stores;
    private final GetDiagnosis diagnosis;
    private final CheckerTally tally;

    ExpiryCheck(VirtualWorld world, StoreOracle stores, GetDiagnosis diagnosis, CheckerTally tally) {
        this.world = world;
        this.stores = stores;
        this.diagnosis = diagnosis;
        this.tally = tally;
    }

    /** Get {@code g} returned {@code p}'s value in {@code reply}. */
    void check(Checker.GetRecord g, PutRecord p, GetReply reply) {
        if (!p.acked()) {
            return;
        }
        long latestTrueExpiry = p.ackNanos + p.ttlSeconds * 1_000_000_000L;
        if (g.startNanos() <= latestTrueExpiry + Checker.S_NANOS) {
            return;
        }
        List<Integer> holders = stores.holders(p, true);
        boolean accurate = false;
        for (int i : holders) {
            accurate |= Math.abs(world.clockOffsetMillis(i)) <= Checker.S_MILLIS;
        }
        if (holders.isEmpty()) {
            accurate = true;
            for (int i = 0; i < world.size(); i++) {
                accurate &= Math.abs(world.clockOffsetMillis(i)) <= Checker.S_MILLIS;
            }
        }
        if (p.racedByLiar && GetDiagnosis.Sources.liarsBindingOnly(p, diagnosis.servedFrom(g, p))) {
            // Every node the get read the bytes from held them under another binding only: a liar's put of them.
            tally.excused(Excuse.LIARS_OWN_COPY_PAST_EXPIRY);
            return;
        }
        if (accurate) {
            tally.violation(p.clockTainted || p.stampedLate ? Rule.SERVED_PAST_EXPIRY_CLOCK : Rule.SERVED_PAST_EXPIRY,
                    p.key, g.gateway(), p.name() + " (ttl " + p.ttlSeconds + " s) served to a get started "
                    + millis(g.startNanos() - latestTrueExpiry) + " ms after its true expiry; live copies on nodes "
                    + holders + " with clock errors " + offsets(holders) + " ms" + expiryDetail(p, holders, reply,
                    latestTrueExpiry));
        } else {
            tally.countServedLateBeyondS();
        }
    }

    /**
     * Why a value was served late: each holder's copy's expiry against the latest true expiry, and its expiry clock's
     * error, in ms (a copy stretched past its TTL, or a clock behind); and which node answered.
     */
    private String expiryDetail(PutRecord p, List<Integer> holders, GetReply reply, long latestTrueExpiryNanos) {
        long trueExpiryMillis = world.scheduler().epochMillis() + (latestTrueExpiryNanos - now()) / 1_000_000;
        StringBuilder b = new StringBuilder("; stamped expiry - true, expiry clock error (ms):");
        for (int i : holders) {
            Optional<StoredRecord> r = world.store(i).read(p.key, p.slot);
            b.append(' ').append(i).append('=')
                    .append(r.map(x -> Long.toString(x.expiresAtMillis() - trueExpiryMillis)).orElse("-"))
                    .append('/').append(world.expiryClockErrorMillis(i));
        }
        GetDiagnosis.Served s = diagnosis.peek(reply);
        return b.append("; answered by ").append(s == null ? "?" : s.node() + " (expiry clock error "
                + world.expiryClockErrorMillis(s.node()) + " ms)").toString();
    }

    private long now() {
        return world.scheduler().nanoTime();
    }

    private String offsets(List<Integer> nodes) {
        List<Long> out = new ArrayList<>();
        for (int i : nodes) {
            out.add(world.clockOffsetMillis(i));
        }
        return out.toString();
    }

    private static long millis(long nanos) {
        return nanos / 1_000_000L;
    }
}
