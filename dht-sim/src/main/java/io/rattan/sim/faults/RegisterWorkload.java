package io.rattan.sim.faults;

import io.rattan.api.Bytes;
import io.rattan.api.GetOptions;
import io.rattan.api.Id;
import io.rattan.api.OwnerStamp;
import io.rattan.api.RoutingMode;
import io.rattan.api.SignedOp;
import io.rattan.api.Status;
import io.rattan.core.msg.ClientMessages.ClientGet;
import io.rattan.core.msg.ClientMessages.ClientPut;
import io.rattan.core.msg.Message;
import io.rattan.core.msg.PutCondition;
import io.rattan.core.msg.RequestMessages.GetReply;
import io.rattan.core.msg.RequestMessages.PutReply;
import io.rattan.core.msg.RequestMessages.ValueEntry;
import io.rattan.core.owned.OwnerSignatures;
import io.rattan.core.owned.SignedBytes;
import io.rattan.core.virtual.VirtualWorld;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Owned values used as registers (issue 36): on a few keys of their own, each one owner's value id 1, rounds of three
 * compare-and-swaps racing from the version the clients last saw (to a sequence 1–3 above it) and two quorum reads,
 * through random gateways, spread over the run. Every answer goes into {@link RegisterHistories}, which judges each
 * key's history for linearizability at the end. It draws from its own random stream, so the other workload's draws
 * are the same with or without it.
 */
final class RegisterWorkload {

    static final int KEYS = 4;
    /** At most this many operations per key: what the checker searches stays small. */
    static final int OPS_PER_KEY = 100;
    private static final int SWAPS_PER_ROUND = 3;
    private static final int READS_PER_ROUND = 2;
    private static final long ROUND_SPREAD_NANOS = 150_000_000L;
    private static final long VALUE_ID = 1;
    private static final long EXPIRY_SECONDS = 3600;

    private final VirtualWorld world;
    private final Workload clients;
    private final RegisterHistories histories;
    private final SplittableRandom random;
    private final Bytes ownerKey;
    private final List<Id> keys = new ArrayList<>();
    /** The version the clients last saw of each key (null: none): where the next round's swaps start from. */
    private final Map<Id, RegisterVersion> lastSeen = new HashMap<>();
    private long written;

    RegisterWorkload(VirtualWorld world, Workload clients, RegisterHistories histories, SplittableRandom random) {
        this.world = world;
        this.clients = clients;
        this.histories = histories;
        this.random = random;
        byte[] seed = new byte[32];
        random.nextBytes(seed);
        this.ownerKey = Bytes.of(seed);
        for (int i = 0; i < KEYS; i++) {
            keys.add(Id.random(random));
        }
    }

    /** Schedules every key's rounds at random moments between {@code fromNanos} and {@code toNanos} (absolute). */
    void start(long fromNanos, long toNanos) {
        histories.track(keys);
        int rounds = OPS_PER_KEY / (SWAPS_PER_ROUND + READS_PER_ROUND);
        for (Id key : keys) {
            for (int i = 0; i < rounds; i++) {
                long at = fromNanos + random.nextLong(toNanos - fromNanos);
                world.scheduler().schedule(at - now(), () -> round(key));
            }
        }
    }

    private long now() {
        return world.scheduler().nanoTime();
    }

    private void round(Id key) {
        for (int i = 0; i < SWAPS_PER_ROUND; i++) {
            world.scheduler().schedule(random.nextLong(ROUND_SPREAD_NANOS), () -> swap(key));
        }
        for (int i = 0; i < READS_PER_ROUND; i++) {
            world.scheduler().schedule(random.nextLong(ROUND_SPREAD_NANOS), () -> read(key));
        }
    }

    private void swap(Id key) {
        RegisterVersion from = lastSeen.get(key);
        Long expected = from == null ? null : from.seq();
        RegisterVersion to = new RegisterVersion((from == null ? 0 : from.seq()) + 1 + random.nextInt(3),
                "w" + (written++));
        Bytes data = Bytes.utf8(to.data());
        long expiry = world.scheduler().epochMillis() / 1000 + EXPIRY_SECONDS;
        OwnerStamp stamp = OwnerSignatures.sign(ownerKey, SignedOp.PUT, SignedBytes.DEFAULT_NAMESPACE, key, VALUE_ID,
                to.seq(), expiry, data.sha256());
        PutCondition condition = expected == null ? PutCondition.ABSENT : PutCondition.ifSeq(expected);
        long invoked = now();
        int gateway = gateway();
        if (gateway < 0) {
            // Never sent: no write to account for.
            histories.refusedOutright(key);
            return;
        }
        clients.send(new ClientPut(key, data, 0, Bytes.EMPTY, stamp, condition), gateway, reply -> {
            RegisterOp.Outcome outcome = outcome(reply);
            if (outcome == null) {
                histories.refusedOutright(key);
                return;
            }
            Long current = outcome == RegisterOp.Outcome.REFUSED ? ((PutReply) reply).currentSeq() : null;
            histories.add(key, RegisterOp.swap(invoked, now(), expected, to, outcome, current));
            if (outcome == RegisterOp.Outcome.SWAPPED) {
                lastSeen.put(key, to);
            } else if (outcome == RegisterOp.Outcome.REFUSED) {
                // Only the sequence matters to the next swap's condition.
                seen(key, current == null ? null : new RegisterVersion(current, "?"));
            }
        });
    }

    /**
     * A swap's outcome from its answer: swapped, refused (412, with the sequence held), or unknown (no answer, or a
     * failure after which the root may have stored it); null for a refusal before anything was written (403, 409,
     * 400), which leaves no trace in the register.
     */
    private static RegisterOp.Outcome outcome(Message reply) {
        if (!(reply instanceof PutReply put)) {
            return RegisterOp.Outcome.UNKNOWN;
        }
        return switch (put.status()) {
            case OK -> RegisterOp.Outcome.SWAPPED;
            case PRECONDITION_FAILED -> RegisterOp.Outcome.REFUSED;
            case FORBIDDEN, CONFLICT, BAD_REQUEST -> null;
            default -> RegisterOp.Outcome.UNKNOWN;
        };
    }

    private void read(Id key) {
        long invoked = now();
        ClientGet get = ClientGet.of(key, GetOptions.of(RoutingMode.DEFAULT).withQuorum(0));
        clients.send(get, gateway(), reply -> {
            // A read that failed or reached fewer than R replicas says nothing of the register.
            if (!(reply instanceof GetReply g) || g.status() != Status.OK && g.status() != Status.NOT_FOUND) {
                return;
            }
            RegisterVersion seen = null;
            for (ValueEntry e : g.values()) {
                if (e.stamp() != null && e.stamp().valueId() == VALUE_ID) {
                    seen = new RegisterVersion(e.stamp().seq(),
                            new String(e.value().toByteArray(), StandardCharsets.UTF_8));
                }
            }
            histories.add(key, RegisterOp.read(invoked, now(), seen));
            seen(key, seen);
        });
    }

    private void seen(Id key, RegisterVersion version) {
        if (version == null) {
            lastSeen.remove(key);
        } else {
            lastSeen.put(key, version);
        }
    }

    private int gateway() {
        return Workload.gateway(world, random);
    }
}
