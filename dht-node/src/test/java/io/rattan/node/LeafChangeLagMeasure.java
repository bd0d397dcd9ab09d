package io.rattan.node;

import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.HistogramSnapshot;
import io.micrometer.core.instrument.distribution.ValueAtPercentile;
import io.rattan.core.store.ForwardingStore;
import io.rattan.core.store.Store;
import io.rattan.core.store.StoredRecord;
import io.rattan.node.store.SstLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * Not a test: issue 17's benchmark, behind docs/durability.md's "Store work off the loop" figures. A node whose store
 * holds {@code rattan.measure.records} records (10^6 by default, loaded by SST ingestion, not puts) is started, and
 * {@code rattan.measure.peers} empty nodes (3) join through it, so its leaf set changes and repair streams its records
 * to them: range-digest scans of the whole store, batch reads, and on the peers batch writes. For
 * {@code rattan.measure.seconds} (60) after the first join, a probe thread per node posts a task to the node's loop
 * every 10 ms and records how late it runs; the figures printed are that lag's p99, p99.9 and max per node, the
 * node's own {@code rattan.eventloop.lag} timer, and how many copies reached the peers. With
 * {@code -Drattan.measure.inline=true} every store task runs on the loop instead (as before issue 17), for comparison.
 * Asserts nothing. Run with {@code -Drattan.measure=true}.
 */
@EnabledIfSystemProperty(named = "rattan.measure", matches = "true")
class LeafChangeLagMeasure {

    private static final long RECORDS = Long.getLong("rattan.measure.records", 1_000_000);
    private static final int PEERS = Integer.getInteger("rattan.measure.peers", 3);
    private static final Duration WINDOW = Duration.ofSeconds(Long.getLong("rattan.measure.seconds", 60));
    private static final boolean INLINE = Boolean.getBoolean("rattan.measure.inline");
    private static final int VALUE_BYTES = 100;
    private static final long PROBE_MILLIS = 10;

    @TempDir
    Path dir;

    @Test
    void loopLagWhileALoadedNodesLeafSetChanges() throws Exception {
        String mode = INLINE ? "inline (store work on the loop)" : "off-loop (store thread)";
        System.out.printf("leaf-change lag: %,d records, %d joining peers, %d s window, %s; load average %s%n",
                RECORDS, PEERS, WINDOW.toSeconds(), mode, loadAverage());
        Path loadedDir = dir.resolve("loaded");
        long t0 = System.nanoTime();
        long sstBytes = SstLoader.load(loadedDir.resolve(RattanNode.STORE_DIR), RECORDS, VALUE_BYTES,
                System.currentTimeMillis() + TimeUnit.DAYS.toMillis(7));
        System.out.printf("loaded by SST ingestion in %.1f s (%,d bytes of SST)%n", seconds(t0), sstBytes);
        UnaryOperator<Store> hook = INLINE ? InlineStore::new : UnaryOperator.identity();
        List<RattanNode> nodes = new ArrayList<>();
        List<LagProbe> probes = new ArrayList<>();
        try {
            long t1 = System.nanoTime();
            RattanNode loaded = RattanNode.start(NodeOptions.local(loadedDir), hook);
            nodes.add(loaded);
            while (!loaded.isJoined()) {
                Thread.sleep(50);
            }
            System.out.printf("loaded node started in %.1f s holding %,d records%n", seconds(t1),
                    loaded.status().storedRecords());
            probes.add(new LagProbe("loaded", loaded));
            for (int i = 0; i < PEERS; i++) {
                RattanNode peer = RattanNode.start(NodeOptions.local(dir.resolve("peer" + i))
                        .withBootstrap(List.of(loaded.contact().address())), hook);
                nodes.add(peer);
                probes.add(new LagProbe("peer" + i, peer));
            }
            probes.forEach(LagProbe::start);
            Thread.sleep(WINDOW.toMillis());
            probes.forEach(LagProbe::stop);
            for (LagProbe p : probes) {
                p.report();
            }
            long copies = 0;
            for (RattanNode n : nodes.subList(1, nodes.size())) {
                copies += n.status().storedRecords();
            }
            System.out.printf("copies on the peers after %d s: %,d of %,d owed; loaded node's leaf set: %d; "
                    + "load average %s%n", WINDOW.toSeconds(), copies, RECORDS * PEERS,
                    loaded.status().leafSet().size(), loadAverage());
            Optional<StoredRecord> sample = loaded.readStore(SstLoader.keyOf(RECORDS / 2, RECORDS),
                    SstLoader.valueOf(RECORDS / 2, VALUE_BYTES).sha256()).get(60, TimeUnit.SECONDS);
            System.out.println("loaded node serves an ingested record: " + sample.isPresent());
        } finally {
            probes.forEach(LagProbe::stop);
            // Halts: a graceful leave would hand the whole store off again.
            for (RattanNode n : nodes) {
                n.halt();
            }
        }
    }

    private static double seconds(long sinceNanos) {
        return (System.nanoTime() - sinceNanos) / 1e9;
    }

    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).trim();
        } catch (Exception e) {
            return "unknown";
        }
    }

    /** Posts a task to one node's loop every 10 ms and records how late each runs. */
    private static final class LagProbe {
        private final String name;
        private final RattanNode node;
        private final List<Long> lagsNanos = new ArrayList<>();
        private final AtomicBoolean running = new AtomicBoolean();
        private Thread thread;

        LagProbe(String name, RattanNode node) {
            this.name = name;
            this.node = node;
        }

        void start() {
            running.set(true);
            thread = new Thread(this::run, "lag-probe-" + name);
            thread.setDaemon(true);
            thread.start();
        }

        void stop() {
            running.set(false);
            if (thread != null) {
                try {
                    thread.join(30_000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        private void run() {
            while (running.get()) {
                long posted = System.nanoTime();
                try {
                    long ran = node.call(n -> System.nanoTime()).get(30, TimeUnit.SECONDS);
                    synchronized (lagsNanos) {
                        lagsNanos.add(ran - posted);
                    }
                    Thread.sleep(PROBE_MILLIS);
                } catch (Exception e) {
                    return;
                }
            }
        }

        void report() {
            long[] sorted;
            synchronized (lagsNanos) {
                sorted = lagsNanos.stream().mapToLong(Long::longValue).sorted().toArray();
            }
            if (sorted.length == 0) {
                System.out.printf("lag %-7s: no samples%n", name);
                return;
            }
            Timer timer = node.meterRegistry().find("rattan.eventloop.lag").timer();
            String own = "";
            if (timer != null) {
                HistogramSnapshot s = timer.takeSnapshot();
                StringBuilder b = new StringBuilder();
                for (ValueAtPercentile v : s.percentileValues()) {
                    b.append(String.format(" p%s=%.1f ms", v.percentile() * 100, v.value(TimeUnit.NANOSECONDS) / 1e6));
                }
                own = String.format("; its rattan.eventloop.lag:%s max=%.1f ms", b, s.max(TimeUnit.NANOSECONDS) / 1e6);
            }
            System.out.printf("lag %-7s: %d samples, p50=%.2f ms p99=%.2f ms p99.9=%.2f ms max=%.2f ms%s%n", name,
                    sorted.length, at(sorted, 0.50), at(sorted, 0.99), at(sorted, 0.999),
                    sorted[sorted.length - 1] / 1e6, own);
        }

        private static double at(long[] sorted, double q) {
            int i = (int) Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1);
            return sorted[Math.max(0, i)] / 1e6;
        }
    }

    /** Every store task runs where it is submitted, on the node's loop: the node as it was before issue 17. */
    private static final class InlineStore extends ForwardingStore {
        InlineStore(Store store) {
            super(store);
        }

        @Override
        public <T> void submit(Supplier<T> work, BiConsumer<T, RuntimeException> done) {
            Store.runNow(work, done);
        }
    }
}
