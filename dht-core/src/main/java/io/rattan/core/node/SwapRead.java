package io.rattan.core.node;

import static io.rattan.core.node.NodeContext.nanos;

import io.rattan.api.Bytes;
import io.rattan.api.Id;
import io.rattan.core.msg.Envelope;
import io.rattan.core.msg.ReplicaMessages.ReplicaRead;
import io.rattan.core.msg.ReplicaMessages.ReplicaReadReply;
import io.rattan.core.msg.ReplicaMessages.ReplicaRecord;
import io.rattan.core.net.Contact;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The root's read before it decides a compare-and-swap: the owned value's slot as a majority of the key's replicas
 * hold it (R = max(⌊k/2⌋, k − W) + 1, the root one of them). A root that became root by a join or a crash may not have been
 * repaired yet; the last acknowledged version is on W replicas, and R + W > k, so the read brings it here before the
 * condition is judged. With fewer than R answers in time the swap is refused, as a partition's minority side must
 * refuse it: a swap both sides took would not be one (the fault simulator's rule 7, docs/testing.md). Owned by the
 * node's event loop.
 */
final class SwapRead {

    private final NodeContext ctx;
    private final Membership members;
    private final Id key;
    private final Bytes slot;
    private final List<Contact> candidates;
    private final int needed;
    private final Consumer<List<ReplicaRecord>> onRead;
    private final Consumer<String> onShort;
    private final Set<Id> asked = new HashSet<>();
    private final Set<Id> late = new HashSet<>();
    private final List<ReplicaRecord> found = new ArrayList<>();
    private int answered;
    private int outstanding;
    private boolean done;

    private SwapRead(NodeContext ctx, Membership members, Id key, Bytes slot, List<Contact> replicas,
                     Consumer<List<ReplicaRecord>> onRead, Consumer<String> onShort) {
        this.ctx = ctx;
        this.members = members;
        this.key = key;
        this.slot = slot;
        this.candidates = new ArrayList<>(replicas);
        candidates.remove(ctx.self());
        // Replicas whose answers to this node have stopped last: one would hold the swap up.
        candidates.sort(Comparator.comparing(c -> members.answersStopped(c.id())));
        // A majority (so that one side of a partition at most decides), and enough that R + W > k.
        this.needed = Math.max(ctx.config().replicas() / 2, ctx.config().replicas() - ctx.config().writeQuorum());
        this.onRead = onRead;
        this.onShort = onShort;
    }

    /**
     * Reads {@code slot} of {@code key} from max(⌊k/2⌋, k − W) of {@code replicas} (the key's k closest in this node's
     * view) other than this node, then hands
     * {@code onRead} the records they hold under it (none, one or several versions); or tells {@code onShort} why too
     * few answered.
     */
    static void read(NodeContext ctx, Membership members, Id key, Bytes slot, List<Contact> replicas,
                     Consumer<List<ReplicaRecord>> onRead, Consumer<String> onShort) {
        SwapRead r = new SwapRead(ctx, members, key, slot, replicas, onRead, onShort);
        if (r.needed <= 0) {
            onRead.accept(List.of());
            return;
        }
        r.askMore();
    }

    private void askMore() {
        for (Contact c : candidates) {
            if (done || answered + outstanding - late.size() >= needed) {
                return;
            }
            if (asked.add(c.id())) {
                ask(c);
            }
        }
        if (!done && outstanding == 0 && answered < needed) {
            done = true;
            onShort.accept("only " + answered + " of the " + needed + " other replicas a swap reads answered");
        }
    }

    private void ask(Contact c) {
        outstanding++;
        ReplicaRead read = new ReplicaRead(key, predecessor(slot), 1);
        PatientRequest.send(ctx, members, c, read, nanos(ctx.config().requestTimeoutMillis()) / 2,
                () -> {
                    late.add(c.id());
                    askMore();
                },
                ReplyHandler.of(reply -> answered(c, reply), () -> failed(c)));
    }

    private void answered(Contact c, Envelope reply) {
        if (done) {
            return;
        }
        if (!(reply.body() instanceof ReplicaReadReply r)) {
            failed(c);
            return;
        }
        outstanding--;
        late.remove(c.id());
        answered++;
        for (ReplicaRecord rec : r.records()) {
            if (rec.valueHash().equals(slot) && rec.stamp() != null) {
                found.add(rec);
            }
        }
        if (answered >= needed) {
            done = true;
            onRead.accept(List.copyOf(found));
        }
    }

    private void failed(Contact c) {
        if (done) {
            return;
        }
        outstanding--;
        late.remove(c.id());
        askMore();
    }

    /** The hash just below {@code hash}: a page that follows it starts at {@code hash} itself. */
    static Bytes predecessor(Bytes hash) {
        byte[] b = hash.toByteArray();
        for (int i = b.length - 1; i >= 0; i--) {
            if (b[i] != 0) {
                b[i]--;
                return Bytes.wrap(b);
            }
            b[i] = (byte) 0xFF;
        }
        // All zeros: no hash is below it, and the first page starts at it.
        return Bytes.EMPTY;
    }
}
