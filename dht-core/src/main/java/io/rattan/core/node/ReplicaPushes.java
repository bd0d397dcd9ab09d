package io.rattan.core.node;

import static io.rattan.core.node.NodeContext.nanos;

import io.rattan.core.msg.Messages.ReplicaRecord;
import io.rattan.core.msg.Messages.StoreReplicas;
import io.rattan.core.net.Contact;
import io.rattan.core.store.StoredRecord;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One batch of copies to push to other nodes: records gathered per destination into bounded {@link StoreReplicas}
 * messages, sent as each fills and the rest at {@link #flush}; {@code onAllAcked} runs once every message was
 * answered or timed out. Used once, on the node's event loop.
 */
final class ReplicaPushes {

    private static final int PUSH_BYTES_MAX = 256 * 1024;

    private final NodeContext ctx;
    private final LocalReplica replica;
    private final Runnable onAllAcked;
    private final Map<Contact, List<ReplicaRecord>> batches = new LinkedHashMap<>();
    private final Map<Contact, Integer> batchBytes = new LinkedHashMap<>();
    private int outstanding;
    private boolean flushed;

    ReplicaPushes(NodeContext ctx, LocalReplica replica) {
        this(ctx, replica, () -> { });
    }

    ReplicaPushes(NodeContext ctx, LocalReplica replica, Runnable onAllAcked) {
        this.ctx = ctx;
        this.replica = replica;
        this.onAllAcked = onAllAcked;
    }

    void add(Contact to, StoredRecord r) {
        List<ReplicaRecord> batch = batches.computeIfAbsent(to, k -> new ArrayList<>());
        batch.add(replica.toWire(r));
        int bytes = batchBytes.merge(to, r.value().length() + 128, Integer::sum);
        if (batch.size() >= ctx.config().digestEntriesMax() || bytes >= PUSH_BYTES_MAX) {
            send(to, List.copyOf(batch));
            batch.clear();
            batchBytes.put(to, 0);
        }
    }

    private void send(Contact to, List<ReplicaRecord> records) {
        outstanding++;
        ReplyHandler done = ReplyHandler.of(reply -> done(), this::done);
        ctx.outbox().request(to, new StoreReplicas(records), nanos(ctx.config().rtoMaxMillis()), done);
    }

    private void done() {
        outstanding--;
        if (flushed && outstanding == 0) {
            onAllAcked.run();
        }
    }

    void flush() {
        for (Map.Entry<Contact, List<ReplicaRecord>> e : batches.entrySet()) {
            if (!e.getValue().isEmpty()) {
                send(e.getKey(), List.copyOf(e.getValue()));
            }
        }
        batches.clear();
        flushed = true;
        if (outstanding == 0) {
            onAllAcked.run();
        }
    }
}
