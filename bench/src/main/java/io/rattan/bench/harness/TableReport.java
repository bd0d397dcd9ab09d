package io.rattan.bench.harness;

import io.rattan.api.Cost;
import io.rattan.sim.experiment.OpenDhtTable;
import io.rattan.sim.experiment.TableFiles;
import java.util.List;
import java.util.Locale;

/** The console's and {@code run.txt}'s view of a {@code bench table} run: the rows as the simulator prints them. */
final class TableReport {

    private TableReport() {
    }

    static String text(TableRun.Result result, TableCluster cluster, long seed, double wallSeconds) {
        List<OpenDhtTable.Row> rows = result.rows();
        List<String> firstFailures = result.firstFailures();
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "%n%-16s %6s %8s %8s %8s %8s %6s %7s %8s %6s%n", "mode", "gets", "p50",
                "p90", "p99", "p99.9", "failed", "msgs", "bytes", "hedges"));
        for (OpenDhtTable.Row r : rows) {
            b.append(String.format(Locale.ROOT, "%-16s %6d %8.2f %8.2f %8.2f %8.2f %6d %7s %8s %6s%n", r.mode(),
                    r.gets(), r.p50Ms(), r.p90Ms(), r.p99Ms(), r.p999Ms(), r.failed(),
                    r.msgsPerGet() == null ? "" : String.format(Locale.ROOT, "%.1f", r.msgsPerGet()),
                    r.bytesPerGet() == null ? "" : String.format(Locale.ROOT, "%.0f", r.bytesPerGet()),
                    r.msgsPerGet() == null ? "" : Long.toString(r.hedges())));
        }
        b.append(String.format(Locale.ROOT, "(ms; %d node processes, k = %d, seed %d%s; msgs and bytes: each copy's "
                + "client request and reply and the in-band count of the nodes on its path, every copy that "
                + "answered, bytes as encoded + %d B of headers per message; nodes.json has the nodes' own "
                + "counters, maintenance included)%n", cluster.size(), cluster.replicas(), seed,
                cluster.wan().isOn() ? ", clients on their round's node's host of the cluster's --wan" : "",
                Cost.HEADER_BYTES));
        for (int i = 0; i < firstFailures.size(); i++) {
            if (firstFailures.get(i) != null) {
                b.append(String.format(Locale.ROOT, "first failure of %s: %s%n", rows.get(i).mode(),
                        firstFailures.get(i)));
            }
        }
        if (cluster.slowTrace() != null) {
            // The simulator's line: what routing can change, apart from gets queued behind a slow gateway.
            b.append(TableFiles.healthyGatewayLine(rows, result.healthyGatewayP99Ms(), result.healthyRounds()));
        }
        b.append(String.format(Locale.ROOT, "wall time %.1f s%n", wallSeconds));
        return b.toString();
    }
}
