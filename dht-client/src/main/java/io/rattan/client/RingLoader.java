package io.rattan.client;

import io.netty.channel.EventLoop;
import io.rattan.api.Bytes;
import io.rattan.core.msg.ClientMessages.ClientRing;
import io.rattan.core.msg.ClientMessages.RingReply;
import io.rattan.core.net.Contact;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads the ring into the client's {@link ClientRingImage}: page after page of the nodes the first gateway that
 * answers knows (a {@link ClientRing} call, retried on the next gateways as any call is), up to the image's
 * {@link ClientRingImage#NODES_MAX}; at start, then about every {@link #REFRESH_NANOS minute} (jittered, so that many
 * clients started together do not load together). A failed load is tried again after {@link #RETRY_NANOS} until one
 * succeeds. Nothing waits for it: a get before the first load completes routes as a client without the ring would.
 *
 * <p>Runs on the race loop, which confines the image: loads and gets never touch it at once.
 */
final class RingLoader {

    private static final Logger log = LoggerFactory.getLogger(RingLoader.class);
    /** Between loads: a ring changes by joins and departures, and a miss corrects the image meanwhile. */
    static final long REFRESH_NANOS = TimeUnit.SECONDS.toNanos(60);
    /** Before the first load is tried again: sooner than a refresh, as the one-hop gets are cold until it succeeds. */
    static final long RETRY_NANOS = TimeUnit.SECONDS.toNanos(5);
    /** Nodes asked for per page: a node's own page bound. */
    static final int PAGE_NODES = 256;

    private final ClientRuntime runtime;
    private final ClientRingImage image;
    private final EventLoop loop;
    private final AtomicLong loads = new AtomicLong();
    private volatile int loadedNodes;
    // The load in progress; confined to the loop.
    private final List<Contact> loading = new ArrayList<>();
    private int gateway;

    RingLoader(ClientRuntime runtime, ClientRingImage image) {
        this.runtime = runtime;
        this.image = image;
        this.loop = runtime.raceLoop();
    }

    /** Starts the first load now, in the background. */
    void start() {
        runtime.metrics().ring(() -> loadedNodes, loads::get);
        schedule(0);
    }

    /** Loads completed so far. */
    long loads() {
        return loads.get();
    }

    private void schedule(long delayNanos) {
        if (runtime.isClosed()) {
            return;
        }
        try {
            loop.schedule(this::load, delayNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            // The client is closing: no more loads.
        }
    }

    private void load() {
        loading.clear();
        gateway = runtime.nextStartIndex();
        page(Bytes.EMPTY);
    }

    private void page(Bytes placemark) {
        if (runtime.isClosed()) {
            return;
        }
        runtime.submitBackground(Op.RING, new ClientRing(placemark, PAGE_NODES),
                runtime.deadline(System.nanoTime()), Replies::ring, gateway).whenComplete((page, error) -> {
                    try {
                        loop.execute(() -> paged(page, error));
                    } catch (RejectedExecutionException e) {
                        // The client is closing.
                    }
                });
    }

    private void paged(RingReply page, Throwable error) {
        if (error != null) {
            log.debug("loading the ring failed, again in {} s: {}", seconds(retryNanos()), error.toString());
            schedule(jittered(retryNanos()));
            return;
        }
        loading.addAll(page.nodes());
        if (!page.placemark().isEmpty() && !page.nodes().isEmpty() && loading.size() < ClientRingImage.NODES_MAX) {
            page(page.placemark());
            return;
        }
        List<Contact> nodes = loading.size() > ClientRingImage.NODES_MAX
                ? loading.subList(0, ClientRingImage.NODES_MAX) : loading;
        image.loaded(nodes, page.replicas());
        loadedNodes = nodes.size();
        loads.incrementAndGet();
        log.debug("loaded the ring: {} nodes, k = {}", nodes.size(), page.replicas());
        schedule(jittered(REFRESH_NANOS));
    }

    private long retryNanos() {
        return loads.get() == 0 ? RETRY_NANOS : REFRESH_NANOS;
    }

    /** Uniformly within ±20 % of {@code nanos}. */
    private static long jittered(long nanos) {
        return (long) (nanos * (0.8 + 0.4 * ThreadLocalRandom.current().nextDouble()));
    }

    private static long seconds(long nanos) {
        return TimeUnit.NANOSECONDS.toSeconds(nanos);
    }
}
