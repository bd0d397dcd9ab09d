package io.rattan.sim.faults;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Option;

/** {@code ./rattan sim faults}: seeded fault runs with a checker; a failing seed prints how to replay it. */
@Command(name = "faults", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Runs the fault simulator: unmodified nodes in virtual time, a workload of puts, gets and "
                + "removes through random gateways, seeded faults (crashes with the disk kept or lost, power loss, "
                + "partitions, drops, duplicates, reordering, delay, clock steps and skew, full disks) and a checker "
                + "of the data rules (docs/testing.md).",
            "Runs seeds S, S+1, ... S+N-1. Prints a progress line, every failing seed with the command that replays "
                + "it, and a summary of the faults fired and the rules broken. Exit code 1 when any seed failed."})
public final class FaultsCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--seeds", paramLabel = "N", description = "How many seeds to run (default: ${DEFAULT-VALUE}).")
    int seeds = 1;

    @Option(names = "--seed", paramLabel = "S", description = "The first seed (default: ${DEFAULT-VALUE}).")
    long seed = 1;

    @Option(names = "--nodes", paramLabel = "N", description = "Nodes per run (default: ${DEFAULT-VALUE}).")
    int nodes = 20;

    @Option(names = "--minutes", paramLabel = "MIN", description = "Virtual minutes of workload per run (default: "
            + "${DEFAULT-VALUE}).")
    int minutes = 10;

    @Option(names = "--profile", paramLabel = "P", description = "budget (faults stop at 60%%, then liveness is "
            + "checked too), nobudget (faults until 2 minutes before the end, no liveness rule), none (no fault: the "
            + "checker's control) or ci (FaultSimulatorCiTest's: even seeds budget, odd nobudget, --fsync on seeds "
            + "2, 3, 6, 7, ...; rules and causes printed per profile); all end with the copies rule and a final "
            + "quorum read of every key; default: ${DEFAULT-VALUE}.")
    String profile = "budget";

    @Option(names = "--planted-bug", paramLabel = "BUG", description = "Plant a bug the checker must catch: "
            + "ack-below-w, tombstone-rule-off, extra-second-on-copy, durable-before-sync (with --fsync), "
            + "repair-drops-last-wanted, repair-streams-no-tombstones, page-skips-boundary, quorum-page-never-more "
            + "cas-condition-ignored (with --registers), watch-never-reads-again (with --watches), "
            + "raw-secrets (with --liars F --attacks secret-harvest), repair-scans-unbounded (with "
            + "--liars F --attacks repair-flood), put-acks-unattributed (with --liars F --attacks fake-ack), "
            + "remove-acks-unattributed (with --liars F --attacks fake-remove), bindings-first-come (with "
            + "--liars F --attacks binding-race), origins-unchecked (with --liars F --attacks forged-origin), "
            + "origins-unmetered (with --liars F --attacks peer-flood), ids-per-host-unbounded (with --liars F "
            + "--attacks slot-capture), clock-three-hosts (with --liars F --attacks clock-lie) or "
            + "get-answers-unchecked (with --liars F --attacks fake-empty) "
            + "(default: none).")
    String bug = "none";

    @Option(names = "--fsync", description = "Run every seed's nodes with --fsync: a write is acknowledged only "
            + "once its sync returned (the ci profile runs it on seeds 2, 3, 6, 7, ...).")
    boolean fsync;

    @Option(names = "--threads", paramLabel = "T", description = "Seeds run side by side (default: "
            + "${DEFAULT-VALUE}); each run is single-threaded and the same whatever this is.")
    int threads = 1;

    @Option(names = "--registers", description = "Also use owned values as registers: rounds of racing "
            + "compare-and-swaps and quorum reads on 4 keys of their own, each key's history checked for "
            + "linearizability (rule 7; keys whose root changed are reported apart).")
    boolean registers;

    @Option(names = "--leaf-set-half", paramLabel = "H", description = "The nodes' leaf set per side: 3..16 "
            + "(default: ${DEFAULT-VALUE}, which puts k = 4 replica sets near its edge; production's is 8).")
    int leafSetHalf = FaultRunConfig.LEAF_SET_HALF;

    @Option(names = "--watches", description = "Also watch " + WatchSessions.WATCHED_KEYS + " of the workload's "
            + "keys, each through a random gateway (a new one when it goes away): every put acknowledged after a "
            + "watch's READY, not removed and live at the end, must have reached each watch that lived to the end "
            + "(rule 8).")
    boolean watches;

    @Option(names = "--liars", paramLabel = "F", description = "A fraction of the nodes (0..0.5; at least one "
            + "node when above 0) that lie as --attacks says, on every profile (default: none). The checker's rules "
            + "count what the lies achieved; the summary counts the lies.")
    double liars;

    @Option(names = "--attacks", paramLabel = "LIST", description = "What the liars do, comma-separated: fake-ack "
            + "(acknowledge puts and copies, store nothing), fake-empty (answer gets with no value), forged-value "
            + "(answer gets with a value nobody put), binding-race (put a passing put's bytes first with a binding of "
            + "their own), fake-remove (acknowledge removes, remove nothing), secret-harvest (ask every node for the "
            + "tombstones of values seen, read the removes routed through: a putter's secret; defended), repair-flood "
            + "(send every node 200 whole-ring range digests a second; defended; runs the stores with a queue), "
            + "forged-origin (send honest nodes puts in another node's name; defended), clock-lie (answer pings with a "
            + "time an hour ahead, and name every liar to every node; defended), or all (docs/testing.md, \"Liars\").")
    String attacks;

    @Option(names = "--verbose", description = "Print every failing seed's first violations.")
    boolean verbose;

    @Override
    public Integer call() throws InterruptedException, ExecutionException {
        boolean ci = profile.equalsIgnoreCase("ci");
        Profile p = ci ? null : Profile.valueOf(profile.toUpperCase(Locale.ROOT));
        PlantedBug b = PlantedBug.valueOf(bug.toUpperCase(Locale.ROOT).replace('-', '_'));
        Liars lying = liarsAsked();
        quietNodeLogs();
        PrintStream out = System.out;
        PrintStream err = System.err;
        boolean terminal = System.console() != null;
        long wallStart = System.nanoTime();
        EnumMap<FaultKind, Long> fired = new EnumMap<>(FaultKind.class);
        EnumMap<Rule, Long> broken = new EnumMap<>(Rule.class);
        java.util.TreeMap<String, EnumMap<Rule, Long>> brokenBy = new java.util.TreeMap<>();
        java.util.TreeMap<String, long[]> readsBy = new java.util.TreeMap<>();
        List<Long> failing = new ArrayList<>();
        java.util.TreeMap<String, Long> causes = new java.util.TreeMap<>();
        FaultTotals totals = new FaultTotals();
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, threads));
        try {
            List<Future<FaultRunResult>> runs = new ArrayList<>();
            for (int i = 0; i < seeds; i++) {
                long s = seed + i;
                FaultRunConfig c = config(s, ci, p, b, lying);
                runs.add(pool.submit(() -> FaultRun.run(c)));
            }
            for (int i = 0; i < runs.size(); i++) {
                FaultRunResult r = runs.get(i).get();
                r.fired().forEach((k, n) -> fired.merge(k, (long) n, Long::sum));
                r.violations().forEach((k, n) -> broken.merge(k, (long) n, Long::sum));
                perProfile(r, ci, brokenBy, readsBy, causes);
                totals.add(r);
                if (seeds == 1 || r.failed()) {
                    if (terminal) {
                        err.print("\r\033[K");
                    }
                    out.println(r.summaryLine());
                }
                if (r.failed()) {
                    failing.add(r.config().seed());
                    out.println("  replay: " + r.config().replayCommand() + "   (expect trace " + r.trace() + ")");
                    if (verbose || seeds == 1) {
                        r.firstViolations().forEach(v -> out.println("    " + v));
                    }
                }
                progress(err, terminal, i + 1, seeds, failing.size(), wallStart);
            }
        } finally {
            pool.shutdownNow();
        }
        if (terminal) {
            err.println();
        }
        summary(out, fired, broken, totals, failing);
        readsBy.forEach((prof, n) -> out.printf(Locale.ROOT, "%s: %d gets served by one replica; %d of them (%.2f%%) "
                + "read a second replica as the view was unsettled, %d as the store was in a fault%n", prof, n[0], n[1],
                100.0 * n[1] / Math.max(1, n[0]), n[2]));
        byProfile(out, ci, brokenBy, causes);
        return failing.isEmpty() ? 0 : 1;
    }

    /** Seed {@code s}'s run as the flags ask for it. */
    private FaultRunConfig config(long s, boolean ci, Profile p, PlantedBug b, Liars lying) {
        // Built whole at the end: a planted bug that shows with liars only is refused without them.
        FaultRunConfig c = ci ? FaultRunConfig.ci(s, nodes, minutes, PlantedBug.NONE, fsync, registers, watches)
                : new FaultRunConfig(s, nodes, minutes, p, PlantedBug.NONE, fsync, registers, watches);
        try {
            return new FaultRunConfig(s, nodes, minutes, c.profile(), b, c.fsync(), registers, watches, leafSetHalf,
                    lying);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    /** The liars the flags ask for; a usage error, not a stack trace, for flags that do not fit. */
    private Liars liarsAsked() {
        try {
            return new Liars(liars, attacks == null ? Set.of() : Attack.parse(attacks));
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    /** Adds run {@code r}'s rules, second reads and rule-1 causes to the per-profile totals. */
    private static void perProfile(FaultRunResult r, boolean ci, java.util.Map<String, EnumMap<Rule, Long>> brokenBy,
                                   java.util.Map<String, long[]> readsBy, java.util.Map<String, Long> causes) {
        String prof = r.config().profile().flag();
        long[] reads = readsBy.computeIfAbsent(prof, x -> new long[3]);
        reads[0] += r.oneReads().served();
        reads[1] += r.oneReads().unsettled();
        reads[2] += r.oneReads().storeFault();
        r.violations().forEach((k, n) -> brokenBy.computeIfAbsent(prof, x -> new EnumMap<>(Rule.class))
                .merge(k, (long) n, Long::sum));
        String prefix = ci ? prof + ": " : "";
        r.rule1Causes().forEach((k, n) -> causes.merge(prefix + k, (long) n, Long::sum));
    }

    /** Rules broken per profile (with {@code --profile ci}) and rule-1 misses by diagnosed cause. */
    private void byProfile(PrintStream out, boolean ci, java.util.Map<String, EnumMap<Rule, Long>> brokenBy,
                           java.util.Map<String, Long> causes) {
        if (ci) {
            brokenBy.forEach((prof, counts) -> {
                out.println("rules broken, " + prof + " seeds:");
                for (Rule r : Rule.values()) {
                    out.printf(Locale.ROOT, "  %-3s %-50s %8d%n", r.number(), r.description(),
                            counts.getOrDefault(r, 0L));
                }
            });
        }
        if (!causes.isEmpty()) {
            out.println("rule 1 misses (not after a clock fault) by diagnosed cause:");
            causes.forEach((k, n) -> {
                if (!k.contains(" | ") || verbose) {
                    out.printf(Locale.ROOT, "  %-90s %8d%n", k.contains(" | ") ? "  " + k : k, n);
                }
            });
        }
    }

    private static void progress(PrintStream err, boolean terminal, int done, int total, int failed, long start) {
        double wall = (System.nanoTime() - start) / 1e9;
        String line = String.format(Locale.ROOT, "seeds %d/%d, %d failed, %.1f s", done, total, failed, wall);
        if (terminal) {
            err.print("\r" + line);
        } else if (done == total || done % Math.max(1, total / 10) == 0) {
            err.println(line);
        }
        err.flush();
    }

    private void summary(PrintStream out, EnumMap<FaultKind, Long> fired, EnumMap<Rule, Long> broken,
                         FaultTotals totals, List<Long> failing) {
        out.println("faults fired over " + seeds + " seeds:");
        for (FaultKind k : FaultKind.values()) {
            out.printf(Locale.ROOT, "  %-36s %8d%n", k.label(), fired.getOrDefault(k, 0L));
        }
        out.println("rules broken:");
        for (Rule r : Rule.values()) {
            out.printf(Locale.ROOT, "  %-3s %-50s %8d%n", r.number(), r.description(), broken.getOrDefault(r, 0L));
        }
        totals.print(out);
        out.println(failing.isEmpty() ? "all " + seeds + " seeds passed"
                : failing.size() + " of " + seeds + " seeds failed: " + abbreviate(failing));
    }

    private static String abbreviate(List<Long> seeds) {
        List<Long> shown = seeds.size() > 30 ? seeds.subList(0, 30) : seeds;
        return shown + (seeds.size() > shown.size() ? " ..." : "");
    }

    /** Nodes log a warning on every store failure and timeout: under faults that is thousands of lines. */
    static void quietNodeLogs() {
        if (LoggerFactory.getLogger("io.rattan.core") instanceof Logger l) {
            l.setLevel(Level.ERROR);
        }
    }
}
