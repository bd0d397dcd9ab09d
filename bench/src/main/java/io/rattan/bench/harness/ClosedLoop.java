package io.rattan.bench.harness;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Closed-loop phases for {@code bench owned}: {@code workers} operations in flight for a phase's length, each sent
 * as the one before it completes, with the operations per second and the CPU the nodes and this process spent. What
 * one phase costs the machine is what it shows: the nodes and this client share it.
 */
final class ClosedLoop {

    /** One operation: worker {@code w}'s {@code n}-th. */
    interface Call {
        CompletableFuture<?> start(int w, long n);
    }

    private final int workers;
    private final Duration length;
    private final NodeCpu nodes;

    ClosedLoop(int workers, Duration length, NodeCpu nodes) {
        this.workers = workers;
        this.length = length;
        this.nodes = nodes;
    }

    /** Runs one phase of {@code call}. */
    Phase run(String op, boolean owned, int round, Call call) throws InterruptedException {
        AtomicLong ok = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        CountDownLatch done = new CountDownLatch(workers);
        // Completions hop to a pool of their own: a call failed at once must not recurse on its caller's stack.
        ExecutorService next = Executors.newFixedThreadPool(2);
        long nodeCpu0 = nodes.totalNanos();
        long clientCpu0 = NodeCpu.ownNanos();
        long t0 = System.nanoTime();
        long end = t0 + length.toNanos();
        try {
            for (int w = 0; w < workers; w++) {
                loop(w, 0, end, call, ok, failed, done, next);
            }
            done.await();
        } finally {
            next.shutdown();
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        return new Phase(op, owned, round, ok.get(), failed.get(), seconds, (nodes.totalNanos() - nodeCpu0) / 1e9,
                (NodeCpu.ownNanos() - clientCpu0) / 1e9);
    }

    private static void loop(int w, long n, long end, Call call, AtomicLong ok, AtomicLong failed,
                             CountDownLatch done, ExecutorService next) {
        if (System.nanoTime() >= end) {
            done.countDown();
            return;
        }
        CompletableFuture<?> f;
        try {
            f = call.start(w, n);
        } catch (RuntimeException e) {
            f = CompletableFuture.failedFuture(e);
        }
        f.whenCompleteAsync((r, e) -> {
            (e == null ? ok : failed).incrementAndGet();
            loop(w, n + 1, end, call, ok, failed, done, next);
        }, next);
    }


    /** One phase: operations that succeeded and failed, its length, and the CPU seconds the nodes and this process used. */
    record Phase(String op, boolean owned, int round, long ok, long failed, double seconds, double nodeCpuSeconds,
                 double clientCpuSeconds) {

        double opsPerSecond() {
            return ok / seconds;
        }

        double nodeCpuMicrosPerOp() {
            return nodeCpuSeconds * 1e6 / Math.max(1, ok);
        }

        double clientCpuMicrosPerOp() {
            return clientCpuSeconds * 1e6 / Math.max(1, ok);
        }

        String line() {
            return String.format(Locale.ROOT, "round %d %s %-7s: %,d ok, %d failed in %.1f s: %,.0f/s; CPU per op "
                    + "%.0f us in the nodes, %.0f us here", round, op, owned ? "owned" : "unowned", ok, failed, seconds,
                    opsPerSecond(), nodeCpuMicrosPerOp(), clientCpuMicrosPerOp());
        }

        ObjectNode json(ObjectMapper mapper) {
            ObjectNode n = mapper.createObjectNode();
            n.put("op", op);
            n.put("kind", owned ? "owned" : "unowned");
            n.put("round", round);
            n.put("ok", ok);
            n.put("failed", failed);
            n.put("seconds", seconds);
            n.put("opsPerSecond", opsPerSecond());
            n.put("nodeCpuMicrosPerOp", nodeCpuMicrosPerOp());
            n.put("clientCpuMicrosPerOp", clientCpuMicrosPerOp());
            return n;
        }
    }

    /** The medians, over the rounds, of one kind's phases. */
    record Median(double opsPerSecond, double nodeCpuMicrosPerOp, double clientCpuMicrosPerOp, long failed) {

        static Median of(List<Phase> phases, String op, boolean owned) {
            List<Phase> these = phases.stream().filter(p -> p.op().equals(op) && p.owned() == owned).toList();
            return new Median(median(these.stream().mapToDouble(Phase::opsPerSecond).toArray()),
                    median(these.stream().mapToDouble(Phase::nodeCpuMicrosPerOp).toArray()),
                    median(these.stream().mapToDouble(Phase::clientCpuMicrosPerOp).toArray()),
                    these.stream().mapToLong(Phase::failed).sum());
        }

        private static double median(double[] xs) {
            Arrays.sort(xs);
            int n = xs.length;
            return n == 0 ? Double.NaN : n % 2 == 1 ? xs[n / 2] : (xs[n / 2 - 1] + xs[n / 2]) / 2;
        }

        double totalCpuMicrosPerOp() {
            return nodeCpuMicrosPerOp + clientCpuMicrosPerOp;
        }

        String line(String what) {
            return String.format(Locale.ROOT, "%s: %,.0f/s; CPU per op %.0f us in the nodes + %.0f us in the client"
                    + " = %.0f us; %d failed%n", what, opsPerSecond, nodeCpuMicrosPerOp, clientCpuMicrosPerOp,
                    totalCpuMicrosPerOp(), failed);
        }

        ObjectNode json(ObjectMapper mapper) {
            ObjectNode n = mapper.createObjectNode();
            n.put("opsPerSecond", opsPerSecond);
            n.put("nodeCpuMicrosPerOp", nodeCpuMicrosPerOp);
            n.put("clientCpuMicrosPerOp", clientCpuMicrosPerOp);
            n.put("failed", failed);
            return n;
        }
    }
}
