package io.rattan.core.node;

import io.rattan.core.env.Clock;
import io.rattan.core.env.Scheduler;
import io.rattan.core.id.NodeKey;
import io.rattan.core.net.Contact;
import java.util.random.RandomGenerator;

/**
 * What every job of a node shares: who it is, its tunables, time, the one random source, its outbox and whether it
 * has stopped. It gives no access to another job's state, nor to the store (only {@link LocalReplica} holds it).
 * Owned by the node's event loop.
 */
final class NodeContext {

    /** Nanoseconds in a millisecond. */
    static final long NANOS_PER_MILLI = 1_000_000L;

    private final Contact self;
    private final NodeConfig config;
    private final Clock clock;
    private final Scheduler scheduler;
    private final RandomGenerator random;
    private final NodeListener listener;
    private final NodeKey key;
    private final String tag;
    private Outbox outbox;
    private boolean stopped;
    // A namespace's context shares its node's lifecycle: stopped when the node is.
    private final NodeContext node;

    NodeContext(Contact self, NodeConfig config, Clock clock, Scheduler scheduler, RandomGenerator random,
                NodeListener listener, NodeKey key) {
        this.self = self;
        this.key = key;
        this.config = config;
        this.clock = clock;
        this.scheduler = scheduler;
        this.random = random;
        this.listener = listener;
        this.tag = "node " + self.id().shortHex();
        this.node = null;
    }

    private NodeContext(NodeContext node, String namespace, NodeConfig config) {
        this.self = node.self;
        this.key = node.key;
        this.config = config;
        this.clock = node.clock;
        this.scheduler = node.scheduler;
        this.random = node.random;
        this.listener = node.listener;
        this.tag = node.tag + " [" + namespace + "]";
        this.node = node;
        this.outbox = node.outbox.inNamespace(namespace);
    }

    /** True for the context of a namespace's jobs, false for the node's (and its default namespace's). */
    boolean isNamespace() {
        return node != null;
    }

    /** The context of {@code namespace}'s jobs: its own settings ({@code config}) and outbox, the node's all else. */
    NodeContext inNamespace(String namespace, NodeConfig config) {
        return new NodeContext(this, namespace, config);
    }

    /** Set once, right after construction: the outbox itself needs the context. */
    void attach(Outbox outbox) {
        if (this.outbox != null) {
            throw new IllegalStateException("outbox already attached");
        }
        this.outbox = outbox;
    }

    Contact self() {
        return self;
    }

    /** The node's key pair, whose id is {@link #self}'s: it signs the puts this node is the gateway of. */
    NodeKey key() {
        return key;
    }

    NodeConfig config() {
        return config;
    }

    Scheduler scheduler() {
        return scheduler;
    }

    Clock clock() {
        return clock;
    }

    RandomGenerator random() {
        return random;
    }

    NodeListener listener() {
        return listener;
    }

    /** "node 1a2b3c4d": what log lines start with. */
    String tag() {
        return tag;
    }

    Outbox outbox() {
        return outbox;
    }

    long now() {
        return clock.nanoTime();
    }

    boolean stopped() {
        return stopped || node != null && node.stopped();
    }

    void markStopped() {
        stopped = true;
    }

    /** {@code millis} of a config setting as nanoseconds. */
    static long nanos(long millis) {
        return millis * NANOS_PER_MILLI;
    }
}
