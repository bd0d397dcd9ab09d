package io.rattan.sim.experiment;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code ./rattan sim churn}: Bamboo's churn experiment, exponential sessions with replacement, reads throughout. */
@Command(name = "churn", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Bamboo's churn experiment (Rhea et al., USENIX 2004): N nodes of the real node code, each "
                + "session exponential with the phase's median, every crashed node replaced by a new one that "
                + "joins through the protocol; V values put first, then read continuously (Poisson gets of random "
                + "keys from random serving gateways). A get succeeds when it returns exactly the value put; a "
                + "failed get is tried once more through another gateway, and both ratios are printed.",
            "Prints, per phase, the gets and their success ratios, the churn counts; the values' live copies, "
                + "sampled each virtual second (the share of samples under k, the fewest seen, and how long the "
                + "spells under k lasted); then the maintenance bytes (every node-to-node message but those of "
                + "client requests) and the repair bytes per live node-second, beside Bamboo's figure."})
public final class SessionChurnCommand implements Callable<Integer> {

    /** Bamboo's maintenance bandwidth at 1000 nodes and a median session of 1.4 min, from the paper's abstract. */
    static final double BAMBOO_BYTES_PER_NODE_SECOND = 900;

    @Option(names = "--nodes", paramLabel = "N", description = "Nodes (default: ${DEFAULT-VALUE}).")
    int nodes = 1000;

    @Option(names = "--replicas", paramLabel = "K", description = "Copies of each value, k (default: "
            + "${DEFAULT-VALUE}; the real node's default is 4).")
    int replicas = 8;

    @Option(names = "--values", paramLabel = "V", description = "Values read (default: ${DEFAULT-VALUE}).")
    int values = 1000;

    @Option(names = "--gets-per-second", paramLabel = "G", description = "Gets per second of virtual time "
            + "across the overlay (default: ${DEFAULT-VALUE}).")
    double getsPerSecond = 5;

    @Option(names = "--phase", paramLabel = "MEDIAN:MINUTES", split = ",", description = "Phases in order: "
            + "median session and length, in minutes (default: 6:60,1.4:60, two simulated hours).")
    List<String> phases = new ArrayList<>(List.of("6:60", "1.4:60"));

    @Option(names = "--seed", paramLabel = "S", description = "Seed (default: ${DEFAULT-VALUE}).")
    long seed = 1;

    @Override
    public Integer call() {
        List<SessionChurn.Phase> parsed = new ArrayList<>();
        for (String p : phases) {
            String[] parts = p.split(":");
            parsed.add(new SessionChurn.Phase(Double.parseDouble(parts[0]), Double.parseDouble(parts[1])));
        }
        long start = System.nanoTime();
        long cpu = java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
        SessionChurn.Result r = new SessionChurn(nodes, replicas, values, getsPerSecond, seed, parsed, System.out::println)
                .run();
        long cpuUsed = java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() - cpu;
        System.out.println(report(r, nodes, (System.nanoTime() - start) / 1e9, cpuUsed / 1e9));
        return 0;
    }

    static String report(SessionChurn.Result r, int nodes, double wallSeconds, double cpuSeconds) {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "%-16s %8s %12s %12s %8s %8s%n", "median session", "gets",
                "ok 1st try", "ok (retry)", "crashes", "joins"));
        for (SessionChurn.PhaseResult p : r.phases()) {
            b.append(String.format(Locale.ROOT, "%-16s %8d %11.3f%% %11.3f%% %8d %8d%n",
                    p.phase().medianMinutes() + " min", p.gets(), 100 * p.firstTryRatio(), 100 * p.ratio(),
                    p.churn().crashes(), p.churn().joins()));
        }
        b.append(String.format(Locale.ROOT, "%-16s %12s %7s %13s %8s %8s %8s%n", "median session", "< k copies",
                "fewest", "spells < k", "p50 s", "p90 s", "max s"));
        for (SessionChurn.PhaseResult p : r.phases()) {
            CopyWatch.Stats c = p.copies();
            b.append(String.format(Locale.ROOT, "%-16s %11.3f%% %7d %13d %8.1f %8.1f %8.1f%n",
                    p.phase().medianMinutes() + " min", 100 * c.shortShare(), c.fewest(), c.shortSeconds().size(),
                    c.shortQuantile(0.5), c.shortQuantile(0.9), c.shortQuantile(1)));
        }
        b.append(String.format(Locale.ROOT, "maintenance %.0f bytes/s per node (repair %.0f of it), %d nodes; "
                        + "Bamboo: < %.0f bytes/s per node at 1000 nodes, median session 1.4 min (Rhea et al., "
                        + "USENIX 2004, abstract)%n", r.maintenanceBytesPerNodeSecond(),
                r.repairBytesPerNodeSecond(), nodes, BAMBOO_BYTES_PER_NODE_SECOND));
        b.append(String.format(Locale.ROOT, "%d events in %.1f s of wall time, %.1f s of CPU on the simulation "
                + "thread%n", r.events(), wallSeconds, cpuSeconds));
        return b.toString();
    }
}
