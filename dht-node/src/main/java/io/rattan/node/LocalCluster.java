package io.rattan.node;

import io.rattan.api.Address;
import io.rattan.core.node.NodeConfig;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Several {@link RattanNode}s in this JVM on loopback, for tests, the bench and demos. Node {@code i} keeps its data in
 * {@code baseDir/node-i}, so a restarted node finds its id and its store again. Every node has its own event loop.
 *
 * <p>Slots keep their index for the cluster's life: a halted node stays in its slot (not running) until it is
 * restarted. Methods are synchronized; the cluster is meant to be driven by one test thread. The caller owns
 * {@code baseDir}; closing deletes nothing.
 */
public final class LocalCluster implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(LocalCluster.class);

    /** How long each node may take to join before the cluster gives up. */
    public static final Duration JOIN_TIMEOUT = Duration.ofSeconds(30);
    private static final long JOIN_POLL_MILLIS = 20;

    private final Path baseDir;
    private final NodeConfig config;
    private final UnaryOperator<NodeOptions> options;
    private final RattanNode[] nodes;
    private final SplittableRandom random = new SplittableRandom();
    private boolean closed;

    private LocalCluster(Path baseDir, NodeConfig config, UnaryOperator<NodeOptions> options, int n) {
        this.baseDir = baseDir;
        this.config = config;
        this.options = options;
        this.nodes = new RattanNode[n];
    }

    /**
     * Starts {@code n} nodes one at a time: node 0 founds the overlay, each later node joins through node 0 and is
     * waited for (up to {@link #JOIN_TIMEOUT}) until it has joined before the next starts.
     *
     * @throws IOException           when a node cannot start (everything started is closed)
     * @throws IllegalStateException when a node does not join in time (everything started is closed)
     */
    public static LocalCluster start(int n, Path baseDir, NodeConfig config) throws IOException {
        return start(n, baseDir, config, UnaryOperator.identity());
    }

    /** As {@link #start(int, Path, NodeConfig)}, each node's options passed through {@code options} first. */
    public static LocalCluster start(int n, Path baseDir, NodeConfig config, UnaryOperator<NodeOptions> options)
            throws IOException {
        if (n < 1) {
            throw new IllegalArgumentException("a cluster needs at least one node, got " + n);
        }
        if (baseDir == null || config == null) {
            throw new IllegalArgumentException("baseDir and config are required");
        }
        LocalCluster cluster = new LocalCluster(baseDir, config, options, n);
        try {
            for (int i = 0; i < n; i++) {
                List<Address> bootstrap = i == 0 ? List.of() : List.of(cluster.nodes[0].contact().address());
                cluster.startSlot(i, bootstrap, true);
            }
        } catch (IOException | RuntimeException | Error e) {
            cluster.close();
            throw e;
        }
        log.info("local cluster of {} nodes up in {}", n, baseDir);
        return cluster;
    }

    /** Every slot's node, running or not, by index. */
    public synchronized List<RattanNode> nodes() {
        return Collections.unmodifiableList(new ArrayList<>(Arrays.asList(nodes)));
    }

    /** The nodes that are running. */
    public synchronized List<RattanNode> liveNodes() {
        List<RattanNode> live = new ArrayList<>();
        for (RattanNode node : nodes) {
            if (node != null && node.isRunning()) {
                live.add(node);
            }
        }
        return live;
    }

    public synchronized RattanNode node(int i) {
        return nodes[checkIndex(i)];
    }

    public int size() {
        return nodes.length;
    }

    /** The directory node {@code i} keeps its id and store in. */
    public Path dataDir(int i) {
        return baseDir.resolve("node-" + checkIndex(i));
    }

    /** Kills node {@code i} in-process (see {@link RattanNode#halt}); it sends nothing more. */
    public synchronized void halt(int i) {
        nodes[checkIndex(i)].halt();
    }

    /**
     * Closes node {@code i} if it is running (graceful leave), then starts it again on the same data directory (same
     * id, same store) with fresh ports, joining through a random other running node, and waits until it has joined.
     */
    public synchronized RattanNode restart(int i) throws IOException {
        return restart(i, true);
    }

    /**
     * As {@link #restart(int)}; with {@code awaitJoin} false it returns as soon as the node is listening, before its
     * join can have completed — so that a test can see what the node holds from its own disk alone.
     */
    public synchronized RattanNode restart(int i, boolean awaitJoin) throws IOException {
        checkIndex(i);
        if (closed) {
            throw new IllegalStateException("cluster is closed");
        }
        nodes[i].close();
        List<RattanNode> others = new ArrayList<>();
        for (int j = 0; j < nodes.length; j++) {
            if (j != i && nodes[j] != null && nodes[j].isRunning()) {
                others.add(nodes[j]);
            }
        }
        List<Address> bootstrap = others.isEmpty()
                ? List.of()
                : List.of(others.get(random.nextInt(others.size())).contact().address());
        if (bootstrap.isEmpty()) {
            log.warn("restarting node {} with no other node running: it founds a new overlay", i);
        }
        return startSlot(i, bootstrap, awaitJoin);
    }

    /** Closes every running node gracefully, all at once. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        List<Thread> closers = new ArrayList<>();
        List<RuntimeException> failures = new ArrayList<>();
        for (RattanNode node : nodes) {
            if (node == null || !node.isRunning()) {
                continue;
            }
            Thread t = new Thread(() -> {
                try {
                    node.close();
                } catch (RuntimeException e) {
                    synchronized (failures) {
                        failures.add(e);
                    }
                }
            }, "close-" + node.contact().id().shortHex());
            t.start();
            closers.add(t);
        }
        boolean interrupted = false;
        for (Thread t : closers) {
            while (true) {
                try {
                    t.join();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        if (!failures.isEmpty()) {
            RuntimeException first = failures.get(0);
            failures.subList(1, failures.size()).forEach(first::addSuppressed);
            throw first;
        }
    }

    private RattanNode startSlot(int i, List<Address> bootstrap, boolean awaitJoin) throws IOException {
        RattanNode node = RattanNode.start(options.apply(NodeOptions.local(dataDir(i)).withConfig(config)
                .withBootstrap(bootstrap)));
        nodes[i] = node;
        if (awaitJoin) {
            awaitJoined(i, node);
        }
        return node;
    }

    private static void awaitJoined(int i, RattanNode node) {
        long deadline = System.nanoTime() + JOIN_TIMEOUT.toNanos();
        while (!node.isJoined()) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("node " + i + " (" + node.contact() + ") did not join within "
                        + JOIN_TIMEOUT.toSeconds() + " s");
            }
            try {
                Thread.sleep(JOIN_POLL_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for node " + i + " to join", e);
            }
        }
    }

    private int checkIndex(int i) {
        if (i < 0 || i >= nodes.length) {
            throw new IndexOutOfBoundsException("no node " + i + " in a cluster of " + nodes.length);
        }
        return i;
    }
}
