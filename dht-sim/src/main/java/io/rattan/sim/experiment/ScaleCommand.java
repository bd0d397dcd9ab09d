package io.rattan.sim.experiment;

import io.rattan.core.node.NodeConfig;
import io.rattan.core.slow.SlowPeriod;
import io.rattan.core.wan.LatencyMatrix;
import io.rattan.sim.net.SlowNodeModel;
import io.rattan.sim.net.SlowSchedule;
import java.io.IOException;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/** {@code ./rattan sim scale}: how large a world the simulator runs, and how fast. */
@Command(name = "scale", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"A benchmark of the simulator, not of Rattan: builds N unmodified nodes on the latency "
                + "matrix, joins them through the protocol in waves (each wave at most doubles the overlay; its "
                + "nodes join at once through nodes already in), puts a few values, then runs M delay-aware gets "
                + "from random gateways as a Poisson process over T virtual minutes, with every node's maintenance "
                + "running at the real node's periods (each second a leaf-set exchange with one member and a "
                + "ping of one routing-table entry or of a slot candidate a table neighbour suggested; anti-entropy "
                + "5 s, purge 10 s).",
            "Nodes are placed on the matrix's hosts round-robin in a seeded order; with more nodes than the matrix "
                + "has hosts (490 for the shipped PlanetLab matrix) several nodes share a host, 0.5 ms apart.",
            "Prints the join time, the get phase's wall time, events and events/s (per wall second, and per CPU "
                + "second of the simulation thread and of the whole process), the peak heap and the heap each "
                + "node retains (after a full GC with every node live, minus the heap before the world existed; "
                + "measured after the joins, before any value is stored, and again after the gets), and the gets' "
                + "success count and latency p50/p99 (at the gateway, in virtual time).",
            "Give the JVM heap with JAVA_OPTS, e.g. JAVA_OPTS=-Xmx8g for 100,000 nodes."})
public final class ScaleCommand implements Callable<Integer> {

    private static final long SECOND = 1_000_000_000L;

    @Option(names = "--nodes", paramLabel = "N", description = "Simulated nodes (default: ${DEFAULT-VALUE}).")
    int nodes = 10_000;

    @Option(names = "--gets", paramLabel = "M", description = "Gets (default: ${DEFAULT-VALUE}).")
    int gets = 1_000_000;

    @Option(names = "--minutes", paramLabel = "T", description = "Virtual minutes the gets are spread over "
            + "(default: ${DEFAULT-VALUE}).")
    int minutes = 60;

    @Option(names = "--values", paramLabel = "V", description = "Values put before the gets; each get asks for "
            + "one of them (default: ${DEFAULT-VALUE}).")
    int values = 1000;

    @Option(names = "--slow-fraction", paramLabel = "F", description = "Share of nodes slow at any moment, as in "
            + "opendht-table (default: ${DEFAULT-VALUE}: none, so that the figures measure the simulator).")
    double slowFraction = 0;

    @Option(names = "--max-wave", paramLabel = "W", description = "Most nodes joining at once (default: "
            + "${DEFAULT-VALUE}).")
    int maxWave = 4096;

    @Mixin
    WorldOptions world;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        if (nodes < 2 || gets < 1 || minutes < 1 || values < 1 || maxWave < 1
                || !(slowFraction >= 0 && slowFraction < 1)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "need --nodes >= 2, --gets >= 1, "
                    + "--minutes >= 1, --values >= 1, --max-wave >= 1, 0 <= --slow-fraction < 1");
        }
        LatencyMatrix matrix = world.matrix();
        SlowNodeModel model = slowFraction == 0 ? SlowNodeModel.none()
                : SlowNodeModel.defaults().withSlowFraction(slowFraction);
        // Joins and puts take minutes of virtual time at most; the schedule covers them and the gets.
        long horizon = (minutes + 60L) * 60 * SECOND;
        List<SlowPeriod> periods = slowFraction == 0 ? List.of()
                : SlowSchedule.generate(model, nodes, horizon, world.seed);
        NodeConfig config = NodeConfig.defaults();
        System.err.printf(Locale.ROOT, "scale: %d nodes on %d hosts, %d gets over %d virtual min, %d values, "
                + "slow fraction %.2f, seed %d%n", nodes, matrix.hosts(), gets, minutes, values, slowFraction,
                world.seed);
        ScaleRun.Result r = new ScaleRun(new ScaleRun.Params(nodes, gets, values, minutes * 60L * SECOND,
                world.seed, maxWave), matrix, periods, model, config, line -> System.err.println("  " + line)).run();
        print(r);
        return 0;
    }

    private void print(ScaleRun.Result r) {
        double getWall = r.getWallNanos() / 1e9;
        double totalWall = r.totalWallNanos() / 1e9;
        Histogram h = r.latency();
        System.out.printf(Locale.ROOT, "nodes                 %d%n", nodes);
        System.out.printf(Locale.ROOT, "join                  %.1f s wall, %.0f s virtual (%d s settling included)%n",
                r.joinWallNanos() / 1e9, r.joinVirtualNanos() / 1e9, ScaleRun.SETTLE_SECONDS);
        System.out.printf(Locale.ROOT, "puts                  %d of %d values stored, %.1f s wall%n",
                r.valuesStored(), values, r.putWallNanos() / 1e9);
        System.out.printf(Locale.ROOT, "get phase             %.1f s wall, %.1f virtual min, %d events, "
                + "%.0f events/s%n", getWall, r.getVirtualNanos() / 60e9, r.getEvents(), r.getEvents() / getWall);
        System.out.printf(Locale.ROOT, "whole run             %.1f s wall, %d events, %.0f events/s%n", totalWall,
                r.events(), r.events() / totalWall);
        if (r.threadCpuNanos() > 0 && r.processCpuNanos() > 0) {
            System.out.printf(Locale.ROOT, "events per CPU second %.0f on the simulation thread, %.0f over the "
                    + "process (%d cores; the simulation runs on one, GC and JIT on the rest)%n",
                    r.events() / (r.threadCpuNanos() / 1e9), r.events() / (r.processCpuNanos() / 1e9),
                    Runtime.getRuntime().availableProcessors());
        }
        System.out.printf(Locale.ROOT, "jvm                   %s%n", HeapProbe.jvm());
        System.out.printf(Locale.ROOT, "heap                  peak %d MiB; retained %.0f MiB after the joins "
                + "(%.1f KB/node, no values stored), %.0f MiB after the gets (%.1f KB/node)%n",
                r.heapPeak() >> 20, r.heapAfterJoin() / 1048576.0, r.heapAfterJoin() / 1000.0 / nodes,
                r.heapAfterGets() / 1048576.0, r.heapAfterGets() / 1000.0 / nodes);
        System.out.printf(Locale.ROOT, "gets                  %d ok, %d failed; latency p50 %.1f ms, p99 %.1f ms%n",
                r.getsOk(), r.getsFailed(), h.getValueAtPercentile(50) / 1000.0,
                h.getValueAtPercentile(99) / 1000.0);
        System.out.printf(Locale.ROOT, "trace                 %016x (the same seed and options give the same)%n",
                r.traceHash());
    }
}
