package io.rattan.bench.harness;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rattan.api.Id;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * What idle watches cost the nodes: their CPU (a share of one core per node) and resident memory over a quiet
 * window, with M watches open (each on a key of its own, spread over the gateways) against the same window before
 * them.
 */
final class IdleWatches {

    /** Watches opened at a time, each batch waited for before the next: a gateway's rate limit is per client. */
    private static final int BATCH = 2_000;

    private IdleWatches() {
    }

    static boolean measure(WatchTarget t, NodeCpu cpu, int count, Duration idle, Duration readyTimeout,
                           PrintWriter log, ObjectNode report, StringBuilder text) throws InterruptedException {
        log.println("measuring the nodes idle for " + idle.toSeconds() + " s, without the idle watches ...");
        log.flush();
        double before = cpu.coresOver(idle);
        List<Long> rssBefore = cpu.rssBytes();
        String run = Long.toHexString(System.nanoTime());
        long opened = System.nanoTime();
        for (int from = 0; from < count; from += BATCH) {
            List<CompletableFuture<Void>> ready = new ArrayList<>();
            for (int i = from; i < Math.min(count, from + BATCH); i++) {
                ready.add(t.watch(i % t.gateways(), Id.ofName("bench-idle-" + run + "-" + i), v -> { }));
            }
            try {
                CompletableFuture.allOf(ready.toArray(CompletableFuture[]::new)).get(readyTimeout.toMillis(),
                        TimeUnit.MILLISECONDS);
            } catch (Exception e) {
                log.println("watches " + from + "… did not all become ready: " + e);
                log.flush();
                return false;
            }
        }
        double openSeconds = (System.nanoTime() - opened) / 1e9;
        log.printf(Locale.ROOT, "%d watches ready after %.1f s; measuring for %d s ...%n", count, openSeconds,
                idle.toSeconds());
        log.flush();
        double with = cpu.coresOver(idle);
        List<Long> rssWith = cpu.rssBytes();
        int nodes = rssWith.size();
        long rssDeltaMax = 0;
        long rssDeltaSum = 0;
        for (int i = 0; i < nodes; i++) {
            long d = rssWith.get(i) - rssBefore.get(i);
            rssDeltaMax = Math.max(rssDeltaMax, d);
            rssDeltaSum += d;
        }
        ObjectNode o = report.putObject("idle");
        o.put("watches", count);
        o.put("nodes", nodes);
        o.put("openSeconds", openSeconds);
        o.put("cpuPerNodeBefore", before / nodes);
        o.put("cpuPerNodeWith", with / nodes);
        o.put("rssDeltaMeanMiB", rssDeltaSum / (double) nodes / (1 << 20));
        o.put("rssDeltaMaxMiB", rssDeltaMax / (double) (1 << 20));
        text.append(String.format(Locale.ROOT, "idle: %d watches over %d nodes (%d each), ready in %.1f s; a node's "
                        + "CPU %.2f%% of a core with them, %.2f%% without (%.2f%% more); RSS %.1f MiB more on average, "
                        + "%.1f MiB at most%n", count, nodes, count / nodes, openSeconds, 100 * with / nodes,
                100 * before / nodes, 100 * (with - before) / nodes, rssDeltaSum / (double) nodes / (1 << 20),
                rssDeltaMax / (double) (1 << 20)));
        return true;
    }
}
