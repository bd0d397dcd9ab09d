package io.rattan.bench.harness;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The CPU time a local cluster's node processes have used, read from each node's pid file
 * ({@code D/node-i/pid}) and the operating system ({@link ProcessHandle.Info#totalCpuDuration()}).
 */
final class NodeCpu {

    private final List<ProcessHandle> processes;

    private NodeCpu(List<ProcessHandle> processes) {
        this.processes = processes;
    }

    /**
     * The {@code count} nodes of the cluster in {@code dir}.
     *
     * @throws IOException naming the node whose pid file is missing or whose process is not running
     */
    static NodeCpu of(Path dir, int count) throws IOException {
        List<ProcessHandle> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Path pid = dir.resolve("node-" + i).resolve("pid");
            if (!Files.isRegularFile(pid)) {
                throw new IOException("node " + i + " of " + dir + " has no pid file (" + pid + "): is it running? "
                        + "('rattan cluster status --dir " + dir + "')");
            }
            long id = Long.parseLong(Files.readString(pid, StandardCharsets.US_ASCII).strip());
            String which = "node " + i + " of " + dir + " (pid " + id + ")";
            out.add(ProcessHandle.of(id).filter(ProcessHandle::isAlive)
                    .orElseThrow(() -> new IOException(which + " is not running")));
        }
        return new NodeCpu(out);
    }

    /**
     * Each node's resident memory now, in bytes ({@code VmRSS} of {@code /proc/PID/status}; 0 where the system has
     * no such file).
     */
    List<Long> rssBytes() {
        List<Long> out = new ArrayList<>();
        for (ProcessHandle p : processes) {
            long rss = 0;
            try {
                for (String line : Files.readAllLines(Path.of("/proc", Long.toString(p.pid()), "status"))) {
                    if (line.startsWith("VmRSS:")) {
                        rss = Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                    }
                }
            } catch (IOException | NumberFormatException e) {
                rss = 0;
            }
            out.add(rss);
        }
        return out;
    }

    /**
     * The nodes' CPU seconds per second over {@code length} from now, all nodes together: what they spend on
     * themselves when nothing else loads them.
     */
    double coresOver(Duration length) throws InterruptedException {
        long before = totalNanos();
        long t0 = System.nanoTime();
        Thread.sleep(Math.max(1, length.toMillis()));
        return (totalNanos() - before) / (double) (System.nanoTime() - t0);
    }

    /** This process's own CPU time so far (the bench's, which shares the machine with the nodes). */
    static long ownNanos() {
        return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
                .getOperatingSystemMXBean()).getProcessCpuTime();
    }

    /** The nodes' CPU time so far, summed. */
    long totalNanos() {
        long sum = 0;
        for (ProcessHandle p : processes) {
            sum += p.info().totalCpuDuration().map(Duration::toNanos).orElse(0L);
        }
        return sum;
    }
}
