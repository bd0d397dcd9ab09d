package io.rattan.node;

import com.google.common.net.InetAddresses;
import io.rattan.api.Address;
import io.rattan.core.node.Node;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Resolves a node's bootstrap host names on a thread of its own (a lookup blocks, and the loop must not), every
 * {@link #PERIOD_MILLIS} until the node has joined, and hands the node every address each name has then: a
 * Kubernetes headless Service's name has one per pod, and none before the first pods are up, so a name is resolved
 * again rather than once. IP literals pass as they are; this node's own address is left out.
 */
final class BootstrapResolver {

    static final long PERIOD_MILLIS = 2_000;

    private static final Logger log = LoggerFactory.getLogger(BootstrapResolver.class);

    /** A name's addresses; the system's resolver unless a test gives another. */
    interface Lookup {
        List<InetAddress> all(String host) throws UnknownHostException;
    }

    static final Lookup SYSTEM = host -> List.of(InetAddress.getAllByName(host));

    private final List<Address> bootstrap;
    private final Address self;
    private final Lookup lookup;
    private final Function<Function<Node, Boolean>, CompletableFuture<Boolean>> onNode;
    private final ScheduledExecutorService thread;
    // Names whose failure was logged at INFO: later ones of the same name go to DEBUG.
    private final Set<String> reported = new HashSet<>();

    private BootstrapResolver(List<Address> bootstrap, Address self, Lookup lookup,
                              Function<Function<Node, Boolean>, CompletableFuture<Boolean>> onNode) {
        this.bootstrap = List.copyOf(bootstrap);
        this.self = self;
        this.lookup = lookup;
        this.onNode = onNode;
        this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "rattan-bootstrap-" + self.port());
            t.setDaemon(true);
            return t;
        });
    }

    /** Whether {@code bootstrap} names a host, rather than only IP literals. */
    static boolean namesAHost(List<Address> bootstrap) {
        return bootstrap.stream().anyMatch(a -> !InetAddresses.isInetAddress(a.host()));
    }

    /** The IP literals of {@code bootstrap}: what a node can try before any name is resolved. */
    static List<Address> literals(List<Address> bootstrap) {
        return bootstrap.stream().filter(a -> InetAddresses.isInetAddress(a.host())).toList();
    }

    /**
     * Starts resolving {@code bootstrap} at once and then periodically, handing each result to the node through
     * {@code onNode} (which runs a function on its loop), until the node has joined or stopped.
     */
    static BootstrapResolver start(List<Address> bootstrap, Address self, Lookup lookup,
                                   Function<Function<Node, Boolean>, CompletableFuture<Boolean>> onNode) {
        BootstrapResolver r = new BootstrapResolver(bootstrap, self, lookup, onNode);
        r.thread.scheduleWithFixedDelay(r::resolveOnce, 0, PERIOD_MILLIS, TimeUnit.MILLISECONDS);
        return r;
    }

    private void resolveOnce() {
        List<Address> now = resolve();
        onNode.apply(node -> {
            if (!node.isJoined()) {
                node.bootstrapResolved(now);
            }
            return node.isJoined();
        }).whenComplete((joined, stopped) -> {
            if (stopped != null || joined) {
                thread.shutdown();
            }
        });
    }

    /** Every address the bootstrap list stands for now, in its order, without duplicates or this node. */
    List<Address> resolve() {
        return resolve(bootstrap, self, lookup, host -> {
            if (reported.add(host)) {
                log.info("node {}: bootstrap name {} does not resolve yet; trying again every {} ms", self, host,
                        PERIOD_MILLIS);
            } else {
                log.debug("node {}: bootstrap name {} does not resolve yet", self, host);
            }
        });
    }

    /**
     * Every address {@code bootstrap} stands for now, in its order, without duplicates or {@code self} (null: none
     * left out); each name that does not resolve goes to {@code unresolved}.
     */
    static List<Address> resolve(List<Address> bootstrap, Address self, Lookup lookup, Consumer<String> unresolved) {
        Set<Address> out = new LinkedHashSet<>();
        for (Address a : bootstrap) {
            if (InetAddresses.isInetAddress(a.host())) {
                out.add(a);
                continue;
            }
            try {
                for (InetAddress ip : lookup.all(a.host())) {
                    out.add(new Address(InetAddresses.toAddrString(ip), a.port()));
                }
            } catch (UnknownHostException e) {
                unresolved.accept(a.host());
            }
        }
        out.remove(self);
        return new ArrayList<>(out);
    }

    /** Stops resolving (the node is closing). */
    void stop() {
        thread.shutdownNow();
    }
}
