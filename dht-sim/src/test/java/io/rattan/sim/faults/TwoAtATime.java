package io.rattan.sim.faults;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Fault runs two at a time (CI's two cores), each printed as it is judged, with its replay command and first
 * violations when it failed: what RegisterCheckTest and WatchCheckTest share.
 */
final class TwoAtATime {

    private TwoAtATime() {
    }

    static List<FaultRunResult> run(String label, List<FaultRunConfig> configs) throws Exception {
        FaultsCommand.quietNodeLogs();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            List<Future<FaultRunResult>> futures = new ArrayList<>();
            for (FaultRunConfig c : configs) {
                futures.add(pool.submit(() -> FaultRun.run(c)));
            }
            List<FaultRunResult> out = new ArrayList<>();
            for (Future<FaultRunResult> f : futures) {
                FaultRunResult r = f.get();
                System.out.println(label + ": " + r.summaryLine());
                if (r.failed()) {
                    System.out.println("  replay: " + r.config().replayCommand());
                    r.firstViolations().forEach(v -> System.out.println("    " + v));
                }
                out.add(r);
            }
            return out;
        } finally {
            pool.shutdownNow();
        }
    }
}
