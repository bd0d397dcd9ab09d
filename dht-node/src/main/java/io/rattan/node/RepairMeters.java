package io.rattan.node;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.rattan.core.node.RepairTotals;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.ToDoubleFunction;

/**
 * Repair's progress as meters, from the totals each {@link NodeMetrics#update} brings: copies sent to peers in
 * pages ({@code rattan.repair.pages}, tag {@code send} = first|again), acknowledged
 * ({@code rattan.repair.records.acked}), bytes ({@code rattan.repair.bytes}), dropped with a peer that left
 * ({@code rattan.repair.records.abandoned}), and the sessions running now; and what others' repair requests were
 * refused: range digests ({@code rattan.repair.requests.refused}, tag {@code reason} = not_member|busy) and the
 * tombstones a digest's answer withheld, or for which a replica read was refused
 * ({@code rattan.repair.tombstones.withheld}).
 */
final class RepairMeters {

    private final AtomicReference<RepairTotals> totals = new AtomicReference<>(RepairTotals.NONE);
    private final Counter refusedNotMember;
    private final Counter refusedBusy;
    private final Counter withheld;

    RepairMeters(MeterRegistry registry) {
        counter(registry, "rattan.repair.pages", "Pages of copies repair sent to peers (again: a page resent)",
                t -> t.pagesSent() - t.pagesResent(), "send", "first");
        counter(registry, "rattan.repair.pages", "Pages of copies repair sent to peers (again: a page resent)",
                RepairTotals::pagesResent, "send", "again");
        counter(registry, "rattan.repair.records.acked", "Copies repair sent that peers acknowledged",
                RepairTotals::recordsAcked, null, null);
        counter(registry, "rattan.repair.bytes", "Bytes of copies repair sent to peers",
                RepairTotals::bytesSent, null, null);
        counter(registry, "rattan.repair.records.abandoned",
                "Copies owed to peers that left the leaf set before acknowledging them (logged at INFO)",
                RepairTotals::recordsAbandoned, null, null);
        Gauge.builder("rattan.repair.sessions", totals, r -> r.get().sessionsRunning())
                .description("Repair sessions running now, with leaf-set members").register(registry);
        this.refusedNotMember = refused(registry, "not_member");
        this.refusedBusy = refused(registry, "busy");
        this.withheld = Counter.builder("rattan.repair.tombstones.withheld")
                .description("Tombstones (they carry the remove's secret) the answer to a peer's digest did not send "
                        + "back, or for which a peer's replica read was refused: the peer is no replica of their keys "
                        + "in this node's view")
                .register(registry);
    }

    private static Counter refused(MeterRegistry registry, String reason) {
        return Counter.builder("rattan.repair.requests.refused")
                .description("Range digests refused: the sender is no leaf-set member (answered with empty sums, "
                        + "nothing read), or has as many range scans running here as it may (not answered)")
                .tag("reason", reason)
                .register(registry);
    }

    /** A repair request was left unanswered ({@code NodeListener#repairRequestRefused}). */
    void refused(boolean busy) {
        (busy ? refusedBusy : refusedNotMember).increment();
    }

    /** Tombstones withheld from a peer ({@code NodeListener#repairTombstonesWithheld}). */
    void withheld(int n) {
        withheld.increment(n);
    }

    void update(RepairTotals t) {
        totals.set(t);
    }

    private void counter(MeterRegistry registry, String name, String description, ToDoubleFunction<RepairTotals> f,
                         String tag, String value) {
        FunctionCounter.Builder<AtomicReference<RepairTotals>> b = FunctionCounter
                .builder(name, totals, r -> f.applyAsDouble(r.get())).description(description);
        if (tag != null) {
            b.tag(tag, value);
        }
        b.register(registry);
    }
}
