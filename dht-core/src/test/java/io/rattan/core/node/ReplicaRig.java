package io.rattan.core.node;

import io.rattan.api.Address;
import io.rattan.api.Bytes;
import io.rattan.api.Cost;
import io.rattan.api.Id;
import io.rattan.api.RoutingMode;
import io.rattan.core.env.Clock;
import io.rattan.core.msg.ReplicaMessages.ReplicaRecord;
import io.rattan.core.msg.RequestMessages.GetRequest;
import io.rattan.core.msg.SecretBinding;
import io.rattan.core.net.Contact;
import io.rattan.core.node.SentLog.Sent;
import io.rattan.core.store.ForwardingStore;
import io.rattan.core.store.MemoryStore;
import io.rattan.core.store.StoredRecord;
import io.rattan.core.virtual.VirtualScheduler;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;

/**
 * The replica that serves a get, built from its parts without a {@link Node} or a network: a {@link GetAnswers} over a
 * {@link LocalReplica} whose store is a {@link MemoryStore} behind a wrapper whose {@link #healthy} the test toggles (a
 * store fault), an outbox that sends into a list for the test to read and answer, and time that moves only when the
 * test runs the scheduler. This node S (0x80…01, k = 4, W = 2) is the root of {@link #KEY} and has heard three peers,
 * closest to KEY first: A (0x80…02), B (0x7f…fd), C (0x80…04). The set-up {@link GetAnswersSettlingTest},
 * {@link GetAnswersStoreFaultTest} and {@link QuorumReadTest} share; each test starts on a new one.
 */
abstract class ReplicaRig {

    static final Id KEY = Id.fromHex("8000000000000000000000000000000000000000");
    static final Bytes SECRET = Bytes.utf8("s");

    private final boolean leafSetChangesReachGets;
    private final long valueLifetimeMillis;

    final SentLog log = new SentLog();
    final List<Sent> sent = log.all();
    final Contact gateway = contact("0100000000000000000000000000000000000000", 9);
    final Contact a = contact("8000000000000000000000000000000000000002", 2);
    final Contact b = contact("7ffffffffffffffffffffffffffffffffffffffd", 3);
    final Contact c = contact("8000000000000000000000000000000000000004", 4);
    /** What the store answers to {@code healthy()}: false is a store fault (a full disk) that refuses copies. */
    boolean healthy = true;
    /** What the replica's clock answers to {@code inDoubt()}: true is an expiry clock that a peer says is off. */
    boolean clockInDoubt;
    VirtualScheduler scheduler;
    MemoryStore memory;
    NodeConfig config;
    NodeContext ctx;
    Membership members;
    Outbox outbox;
    GetAnswers gets;
    /** Whom this node sends tombstones, as {@link Repair} builds it. */
    SecretGuard secrets;

    /**
     * @param leafSetChangesReachGets whether each change of the leaf set is told to {@link GetAnswers#leafSetChanged}
     *        as {@link Node} wires it; without, no join makes a key unsettled, and the tests that are not about
     *        settling see a root that reads only itself
     * @param valueLifetimeMillis how long after the scheduler's current time the records {@link #value} makes expire
     */
    ReplicaRig(boolean leafSetChangesReachGets, long valueLifetimeMillis) {
        this.leafSetChangesReachGets = leafSetChangesReachGets;
        this.valueLifetimeMillis = valueLifetimeMillis;
    }

    /** What the node tells its listener goes here; a test that records a call overrides this (called once per test). */
    NodeListener listener() {
        return NodeListener.NONE;
    }

    @BeforeEach
    void build() {
        scheduler = new VirtualScheduler(1_700_000_000_000L);
        memory = new MemoryStore(scheduler::epochMillis);
        ForwardingStore store = new ForwardingStore(memory) {
            @Override
            public boolean healthy() {
                return healthy;
            }
        };
        Contact self = contact("8000000000000000000000000000000000000001", 1);
        config = NodeConfig.defaults().withReplicas(4, 2);
        GetAnswers[] wired = new GetAnswers[1];
        HandBuiltNode node = leafSetChangesReachGets
                ? HandBuiltNode.of(self, config, scheduler, listener(), log, () -> wired[0].leafSetChanged(),
                        id -> wired[0].answersResumed(id))
                : HandBuiltNode.of(self, config, scheduler, listener(), log);
        ctx = node.ctx();
        members = node.members();
        outbox = node.outbox();
        Clock clock = new Clock() {
            @Override
            public long nanoTime() {
                return scheduler.nanoTime();
            }

            @Override
            public long epochMillis() {
                return scheduler.epochMillis();
            }

            @Override
            public boolean inDoubt() {
                return clockInDoubt;
            }
        };
        gets = new GetAnswers(ctx, members, new LocalReplica(config, store, clock, ctx.tag()));
        wired[0] = gets;
        secrets = new SecretGuard(new ReplicaPairs(ctx, members), gets.reach());
        for (Contact peer : List.of(a, b, c)) {
            members.heard(peer);
        }
    }

    static Contact contact(String hex, int host) {
        return new Contact(Id.fromHex(hex), new Address("10.0.0." + host, 4000));
    }

    /** A value of KEY with a valid binding for {@link #SECRET}. */
    StoredRecord value(String v) {
        return value(KEY, v);
    }

    StoredRecord value(Id key, String v) {
        return StoredRecord.value(key, Bytes.utf8(v), scheduler.epochMillis() + valueLifetimeMillis,
                SecretBinding.of(SECRET, key, Bytes.utf8(v).sha256()));
    }

    /** The record as another replica sends it in a read's answer. */
    static ReplicaRecord wire(StoredRecord r) {
        return new ReplicaRecord(r.key(), r.valueHash(), r.value(), r.expiresAtMillis(), r.binding(), r.secret(),
                r.tombstone());
    }

    /** The messages of {@code type} sent so far, in the order sent. */
    List<Sent> sent(Class<?> type) {
        return log.sent(type);
    }

    /** A get of KEY of consistency one, as the gateway sends it to the root. */
    GetRequest get() {
        return new GetRequest(KEY, RoutingMode.DELAY_AWARE, 0, Bytes.EMPTY, gateway, 77, 2, false, Cost.ZERO);
    }
}
