package io.rattan.bench.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;

/**
 * One node process of a local cluster as the operating system sees it: its pid file and its {@code /proc} entry.
 *
 * <p>A pid is trusted only while {@code /proc/PID/cmdline} names this node's data dir: pids are reused, and a pid
 * file left behind by a crash must never lead to signalling a stranger.
 */
final class NodeProcess {

    private final int index;
    private final Path pidFile;
    private final Path dataDir;

    NodeProcess(int index, Path pidFile, Path dataDir) {
        this.index = index;
        this.pidFile = pidFile;
        this.dataDir = dataDir.toAbsolutePath().normalize();
    }

    int index() {
        return index;
    }

    /** The pid of this node's live process, or empty when there is none (no pid file, or a reused pid). */
    OptionalLong livePid() {
        String text;
        try {
            text = Files.readString(pidFile, StandardCharsets.US_ASCII).trim();
        } catch (NoSuchFileException e) {
            return OptionalLong.empty();
        } catch (IOException e) {
            return OptionalLong.empty();
        }
        long pid;
        try {
            pid = Long.parseLong(text);
        } catch (NumberFormatException e) {
            return OptionalLong.empty();
        }
        return runsDataDir(pid, dataDir) ? OptionalLong.of(pid) : OptionalLong.empty();
    }

    /** True when process {@code pid} is alive and its command line has {@code --data-dir dataDir}. */
    static boolean runsDataDir(long pid, Path dataDir) {
        List<String> args = cmdline(pid);
        // A process that is exec'ing (setsid becoming java) briefly shows an empty command line: look again.
        for (int retry = 0; args.isEmpty() && retry < 20 && Files.exists(Path.of("/proc", Long.toString(pid)));
                retry++) {
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            args = cmdline(pid);
        }
        String dir = dataDir.toAbsolutePath().normalize().toString();
        for (int i = 0; i + 1 < args.size(); i++) {
            if (args.get(i).equals("--data-dir") && args.get(i + 1).equals(dir)) {
                return true;
            }
        }
        return false;
    }

    /** The process's resident set size in KiB (VmRSS in /proc/PID/status), or -1 when it cannot be read. */
    static long rssKib(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
        } catch (IOException | RuntimeException e) {
            // Gone, or not Linux.
        }
        return -1;
    }

    /** The arguments of process {@code pid} from /proc; empty for a process that is gone (or a zombie). */
    static List<String> cmdline(long pid) {
        byte[] raw;
        try {
            raw = Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline"));
        } catch (IOException e) {
            return List.of();
        }
        if (raw.length == 0) {
            return List.of();
        }
        String all = new String(raw, StandardCharsets.UTF_8);
        if (all.endsWith("\0")) {
            all = all.substring(0, all.length() - 1);
        }
        return List.of(all.split("\0", -1));
    }

    void writePid(long pid) throws IOException {
        Files.writeString(pidFile, pid + "\n", StandardCharsets.US_ASCII);
    }

    void forgetPid() {
        try {
            Files.deleteIfExists(pidFile);
        } catch (IOException e) {
            // A stale pid file is harmless: livePid() checks /proc before trusting it.
        }
    }

    /** Sends {@code signal} (STOP, CONT, TERM, KILL) to the live process; false when there is none. */
    boolean signal(String signal) {
        OptionalLong pid = livePid();
        if (pid.isEmpty()) {
            return false;
        }
        return sendSignal(pid.getAsLong(), signal);
    }

    /**
     * Sends a signal by name with kill(1): Java's ProcessHandle can send only TERM and KILL. Waits for kill(1) even
     * when the thread is interrupted (and keeps the interrupt for the caller), so that signals sent one after another
     * arrive in order: a CONT that overtook its STOP would leave a node paused.
     */
    static boolean sendSignal(long pid, String signal) {
        boolean interrupted = Thread.interrupted();
        try {
            Process kill = new ProcessBuilder("kill", "-s", signal, Long.toString(pid))
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (true) {
                try {
                    if (!kill.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                        kill.destroyForcibly();
                        return false;
                    }
                    return kill.exitValue() == 0;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } catch (IOException e) {
            return false;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** The live process's handle, for waiting on its exit. */
    Optional<ProcessHandle> handle() {
        OptionalLong pid = livePid();
        return pid.isEmpty() ? Optional.empty() : ProcessHandle.of(pid.getAsLong());
    }
}
